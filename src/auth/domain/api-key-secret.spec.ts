import {
  API_KEY_PATTERN,
  checksumOf,
  generateApiKeySecret,
  hashApiKeySecret,
  hashesMatch,
  looksLikeApiKeySecret,
} from './api-key-secret';

/** The same character at `index`, changed to another one of the key's alphabet. */
function flip(key: string, index: number): string {
  const replacement = key[index] === 'A' ? 'B' : 'A';
  return key.slice(0, index) + replacement + key.slice(index + 1);
}

describe('API key secrets', () => {
  it('hashes with SHA-256 as lowercase hex (FIPS 180-2 test vector)', () => {
    expect(hashApiKeySecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes the key as UTF-8', () => {
    // SHA-256 of the two bytes c3 a9, not of the one UTF-16 unit of "é".
    expect(hashApiKeySecret('é')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });

  it('makes keys of prefix, 256 random bits and a checksum, which the scanner pattern finds', () => {
    const live = generateApiKeySecret('live');
    expect(live).toMatch(/^ask_live_[A-Za-z0-9_-]{43}[A-Za-z0-9]{6}$/);
    expect(looksLikeApiKeySecret(live)).toBe(true);
    expect(looksLikeApiKeySecret(generateApiKeySecret('test'))).toBe(true);
    expect(generateApiKeySecret('live')).not.toBe(live);
    expect(`leaked: "${live}".`.match(API_KEY_PATTERN)?.[0]).toBe(live);
  });

  it('checksums with CRC32 in six base62 digits, zero-padded', () => {
    // CRC32("abc") is 0x352441C2 (891568578), which is 0yKviM in base62.
    expect(checksumOf('abc')).toBe('0yKviM');
    // CRC32("") is 0.
    expect(checksumOf('')).toBe('000000');
  });

  it('refuses a key with any one character changed, in the randomness, the checksum or the prefix', () => {
    const key = generateApiKeySecret('test');
    for (let index = 'ask_test_'.length; index < key.length; index++) expect(looksLikeApiKeySecret(flip(key, index))).toBe(false);
    expect(looksLikeApiKeySecret(key.replace('ask_test_', 'ask_live_'))).toBe(false);
  });

  it('refuses a truncated or extended key', () => {
    const key = generateApiKeySecret('test');
    for (const length of [key.length - 1, key.length - 5, key.length - 7, 9]) expect(looksLikeApiKeySecret(key.slice(0, length))).toBe(false);
    // Cut at its checksum exactly, a key has the shape of one issued before checksums: that costs one lookup, which finds nothing.
    expect(looksLikeApiKeySecret(key.slice(0, -6))).toBe(true);
    expect(looksLikeApiKeySecret(`${key}x`)).toBe(false);
    expect(looksLikeApiKeySecret(`${key}${checksumOf(key)}`)).toBe(false);
  });

  it('still accepts keys issued before the checksum (43 base64url characters after the prefix)', () => {
    expect(looksLikeApiKeySecret(`ask_test_${'a'.repeat(43)}`)).toBe(true);
    expect(looksLikeApiKeySecret(`ask_live_${'-_A9'.repeat(11).slice(0, 43)}`)).toBe(true);
    expect(looksLikeApiKeySecret(`ask_prod_${'a'.repeat(43)}`)).toBe(false);
    expect(looksLikeApiKeySecret(`ask_test_${'a'.repeat(44)}`)).toBe(false);
  });

  it('compares hashes in full', () => {
    const hash = hashApiKeySecret('a');
    expect(hashesMatch(hash, hashApiKeySecret('a'))).toBe(true);
    expect(hashesMatch(hash, hashApiKeySecret('b'))).toBe(false);
    expect(hashesMatch(hash, hash.slice(0, 62))).toBe(false);
  });
});
