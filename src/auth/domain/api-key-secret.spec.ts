import { generateApiKeySecret, hashApiKeySecret, hashesMatch, looksLikeApiKeySecret } from './api-key-secret';

describe('API key secrets', () => {
  it('hashes with SHA-256 as lowercase hex (FIPS 180-2 test vector)', () => {
    expect(hashApiKeySecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes the key as UTF-8', () => {
    // SHA-256 of the two bytes c3 a9, not of the one UTF-16 unit of "é".
    expect(hashApiKeySecret('é')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });

  it('makes keys that look like keys, with 256 random bits each', () => {
    const live = generateApiKeySecret('live');
    expect(live).toMatch(/^ask_live_[A-Za-z0-9_-]{43}$/);
    expect(looksLikeApiKeySecret(live)).toBe(true);
    expect(looksLikeApiKeySecret(generateApiKeySecret('test'))).toBe(true);
    expect(generateApiKeySecret('live')).not.toBe(live);
    expect(looksLikeApiKeySecret(`${live}x`)).toBe(false);
  });

  it('compares hashes in full', () => {
    const hash = hashApiKeySecret('a');
    expect(hashesMatch(hash, hashApiKeySecret('a'))).toBe(true);
    expect(hashesMatch(hash, hashApiKeySecret('b'))).toBe(false);
    expect(hashesMatch(hash, hash.slice(0, 62))).toBe(false);
  });
});
