import { transitionOf } from './order';

describe('transitionOf', () => {
  it.each([
    ['placed', 'deliver', 'move'],
    ['placed', 'cancel', 'move'],
    ['delivered', 'deliver', 'same'],
    ['cancelled', 'cancel', 'same'],
    ['delivered', 'cancel', undefined],
    ['cancelled', 'deliver', undefined],
  ] as const)('a %s order asked to %s: %p', (status, action, expected) => {
    expect(transitionOf({ status }, action)).toBe(expected);
  });
});
