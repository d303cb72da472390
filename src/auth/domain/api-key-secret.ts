import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

const SECRET_BYTES = 32; // 256 bits of randomness
const CHECKSUM_LENGTH = 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * What a secret scanner looks for: the prefix, 43 base64url characters of
 * randomness, then a CRC32 of everything before it in 6 base62 characters.
 */
export const API_KEY_PATTERN = /ask_(?:live|test)_[A-Za-z0-9_-]{43}[A-Za-z0-9]{6}/;
const CHECKSUMMED_KEY = new RegExp(`^${API_KEY_PATTERN.source}$`);
/** Keys issued before the checksum: still accepted, and looked up as before. */
const UNCHECKSUMMED_KEY = /^ask_(?:live|test)_[A-Za-z0-9_-]{43}$/;

export type KeyEnvironment = 'live' | 'test';

/** A new plaintext key: a readable prefix (`ask_live_` in production, `ask_test_` elsewhere), 256 random bits and a checksum. */
export function generateApiKeySecret(environment: KeyEnvironment): string {
  const unchecked = `ask_${environment}_${randomBytes(SECRET_BYTES).toString('base64url')}`;
  return unchecked + checksumOf(unchecked);
}

/** CRC32 of the key's prefix and randomness, as fixed-width base62 (a 32-bit value always fits in 6 digits). */
export function checksumOf(unchecked: string): string {
  let value = crc32(unchecked);
  let digits = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    digits = BASE62[value % 62] + digits;
    value = Math.floor(value / 62);
  }
  return digits;
}

/** What is stored and looked up: the hex SHA-256 of the whole key (one-shot: it runs on every request). */
export function hashApiKeySecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Whether a stored value can be a hash that hashApiKeySecret made: 64 lower-case hex digits. */
export function isApiKeyHash(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}

/**
 * Offline check that spares the store a lookup for tokens that cannot be keys:
 * a mistyped or truncated key fails its checksum.
 */
export function looksLikeApiKeySecret(token: string): boolean {
  if (UNCHECKSUMMED_KEY.test(token)) return true;
  if (!CHECKSUMMED_KEY.test(token)) return false;
  const split = token.length - CHECKSUM_LENGTH;
  return checksumOf(token.slice(0, split)) === token.slice(split);
}

/** Constant-time comparison of two hex hashes. */
export function hashesMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
