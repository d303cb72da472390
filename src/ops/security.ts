import type { SecurityHeadersOptions } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

type CorsOptions = NonNullable<Parameters<NestFastifyApplication['enableCors']>[0]>;

/**
 * Nest's security headers (helmet's defaults, worked out once at start-up),
 * with a Content-Security-Policy that lets the API
 * documentation page at /docs (Swagger UI, served from this origin) work:
 * its scripts and styles load from 'self'; Swagger UI sets inline style
 * attributes, hence 'unsafe-inline' for styles only, and draws icons from
 * data: URIs. No inline script is allowed anywhere.
 */
export const SECURITY_HEADERS: SecurityHeadersOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      frameAncestors: ["'none'"],
      formAction: ["'self'"],
    },
  },
  // As frame-ancestors 'none', for browsers that only know this header.
  xFrameOptions: { action: 'deny' },
};

/** What a browser script on an allowed origin may read from a response besides the basics: every header the API sends for clients. */
export const CORS_EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Link',
  'Location',
  'ETag',
  'Deprecation',
  'Sunset',
  'Idempotent-Replayed',
  'WWW-Authenticate',
  'X-Request-Id',
];

/** What a browser script may send: every method and request header the API reads (merge-patch+json is a Content-Type value, so nothing to list). */
const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'];
const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'If-None-Match', 'X-Request-Id'];

/** CORS only for the listed origins; undefined (no CORS headers at all) when none is listed. */
export function corsOptionsFor(origins: readonly string[]): CorsOptions | undefined {
  if (origins.length === 0) return undefined;
  return {
    origin: [...origins],
    methods: CORS_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
  };
}
