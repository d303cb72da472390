import { limitedAddressOf } from './client-address';

describe('limitedAddressOf', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:203.0.113.7', '203.0.113.7'],
    ['::ffff:cb00:7107', '203.0.113.7'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::203.0.113.7', '64:ff9b:0:0::/64'],
  ])('counts %s as %s', (ip, limited) => {
    expect(limitedAddressOf(ip)).toBe(limited);
  });

  it.each(['not-an-ip', '', '10.9.9.9, 127.0.0.1', '2001:db8::1::2', undefined])('knows no address in %p', (value) => {
    expect(limitedAddressOf(value)).toBeUndefined();
  });
});
