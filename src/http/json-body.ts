import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { DomainError, InvalidInputError } from '../errors/domain/domain-error';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors/http/request-errors';

/**
 * A body the service will not take (too large, not JSON, malformed JSON),
 * kept as the request's body instead of failing the request at once: the
 * route's guards (authentication, rate limits) then run for it as for any
 * request, and the validation pipe raises the refusal after them.
 */
export class RefusedBody {
  constructor(readonly error: DomainError) {}
}

/** RFC 7396's media type: a JSON merge patch, which only a route marked @AcceptsMergePatch() takes. */
export const MERGE_PATCH_JSON = 'application/merge-patch+json';

/** The Fastify route config of a route that takes a merge patch; the body parser reads it. */
interface MergePatchRouteConfig {
  readonly mergePatch?: boolean;
}

/** The route takes a JSON merge patch (RFC 7396) sent as `application/merge-patch+json` as well as `application/json`. */
export const AcceptsMergePatch = (): MethodDecorator => RouteConfig({ mergePatch: true } satisfies MergePatchRouteConfig);

function refusesMergePatch(request: FastifyRequest): boolean {
  const type = String(request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return type === MERGE_PATCH_JSON && (request.routeOptions.config as MergePatchRouteConfig).mergePatch !== true;
}

/**
 * Bodies are JSON or nothing. Fastify's text/plain parser is removed; any
 * other content type becomes a RefusedBody answered 415. The JSON is read
 * here, up to the body limit, decoded as strict UTF-8 (a byte sequence that is
 * not UTF-8 is refused, never replaced with U+FFFD) and parsed by Fastify's own
 * JSON parser (prototype-poisoning checks included). See docs/adr/0012.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  const bodyLimit = fastify.initialConfig.bodyLimit ?? 1_048_576;
  const parseJson = jsonParser(fastify);
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(['application/json', MERGE_PATCH_JSON], function parseJsonBody(request, payload, done) {
    if (refusesMergePatch(request)) return done(null, new RefusedBody(new UnsupportedMediaTypeError()));
    readBytes(payload, request.headers['content-length'], bodyLimit).then(
      (bytes) => {
        if (bytes === undefined) return done(null, new RefusedBody(new PayloadTooLargeError()));
        const text = decodeUtf8(bytes);
        if (text === undefined) return done(null, new RefusedBody(new InvalidInputError('Request body is not valid UTF-8')));
        done(null, parseJson(request, text));
      },
      (error: Error) => done(error, undefined),
    );
  });
  fastify.addContentTypeParser('*', function refuseOtherMediaType(_request, _payload, done) {
    done(null, new RefusedBody(new UnsupportedMediaTypeError()));
  });
}

type FastifyJsonParser = ReturnType<FastifyInstance['getDefaultJsonParser']>;

/** Runs one of Fastify's JSON parsers, which answer through a callback at once. */
function run(parser: FastifyJsonParser, request: FastifyRequest, text: string): { error?: Error; body?: unknown } {
  let outcome: { error?: Error; body?: unknown } = {};
  parser(request, text, (error, body) => void (outcome = error ? { error } : { body }));
  return outcome;
}

/**
 * Fastify's JSON parser, refusing `__proto__` and `constructor.prototype`
 * keys. Its error does not say which rule a body broke, so a refused body is
 * parsed again with fewer checks to tell a forbidden field from malformed JSON.
 */
function jsonParser(fastify: FastifyInstance): (request: FastifyRequest, text: string) => unknown {
  const strict = fastify.getDefaultJsonParser('error', 'error');
  const constructorAllowed = fastify.getDefaultJsonParser('error', 'ignore');
  const syntaxOnly = fastify.getDefaultJsonParser('ignore', 'ignore');
  return (request, text) => {
    const parsed = run(strict, request, text);
    if (!parsed.error) return parsed.body;
    if (run(syntaxOnly, request, text).error) return new RefusedBody(new InvalidInputError(parsed.error.message));
    const field = run(constructorAllowed, request, text).error ? '__proto__' : 'constructor.prototype';
    return new RefusedBody(new InvalidInputError(`property ${field} should not exist`));
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes as text, or undefined when they are not UTF-8. */
function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The body's bytes, or undefined as soon as they are known to exceed `limit` (the rest is left unread). */
function readBytes(payload: Readable, contentLength: string | undefined, limit: number): Promise<Buffer | undefined> {
  if (Number(contentLength) > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const stop = () => {
      payload.off('data', onData);
      payload.off('end', onEnd);
      payload.off('error', reject);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= limit) return void chunks.push(chunk);
      stop();
      resolve(undefined);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', reject);
  });
}
