import type { FastifyHelmetOptions } from '@fastify/helmet';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

type CorsOptions = NonNullable<Parameters<NestFastifyApplication['enableCors']>[0]>;

/**
 * Helmet's defaults, with a Content-Security-Policy that lets the API
 * documentation page at /docs (Swagger UI, served from this origin) work:
 * its scripts and styles load from 'self'; Swagger UI sets inline style
 * attributes, hence 'unsafe-inline' for styles only, and draws icons from
 * data: URIs. No inline script is allowed anywhere.
 */
export const HELMET_OPTIONS: FastifyHelmetOptions = {
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
  frameguard: { action: 'deny' },
};

/** What a browser script on an allowed origin may read from a response besides the basics. */
export const CORS_EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Link',
  'Location',
  'ETag',
  'Deprecation',
  'Sunset',
  'X-Request-Id',
];

/** CORS only for the listed origins; undefined (no CORS headers at all) when none is listed. */
export function corsOptionsFor(origins: readonly string[]): CorsOptions | undefined {
  if (origins.length === 0) return undefined;
  return {
    origin: [...origins],
    methods: ['GET', 'POST', 'PATCH', 'DELETE'],
    // If-None-Match: a script that keeps a page asks for it again conditionally; If-Match: it changes only the version it read.
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'If-None-Match', 'If-Match'],
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
  };
}
