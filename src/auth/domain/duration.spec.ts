import { parseDuration } from './duration';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['15m', 900_000],
    ['12h', 43_200_000],
    ['90d', 7_776_000_000],
    ['0s', 0],
  ])('reads %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '30', 's', '1.5h', '-1d', '10w', '30 s', '1H', '999999d'])('refuses %p', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});
