import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_BYTES = 32; // 256 bits of randomness
const SECRET_PATTERN = /^ask_(live|test)_[A-Za-z0-9_-]{43}$/;

export type KeyEnvironment = 'live' | 'test';

/** A new plaintext key: a readable prefix (`ask_live_` in production, `ask_test_` elsewhere) and 256 random bits. */
export function generateApiKeySecret(environment: KeyEnvironment): string {
  return `ask_${environment}_${randomBytes(SECRET_BYTES).toString('base64url')}`;
}

/** What is stored and looked up: the hex SHA-256 of the whole key (one-shot: it runs on every request). */
export function hashApiKeySecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Cheap shape check that spares the store a lookup for tokens that cannot be keys. */
export function looksLikeApiKeySecret(token: string): boolean {
  return SECRET_PATTERN.test(token);
}

/** Constant-time comparison of two hex hashes. */
export function hashesMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
