import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { DomainError, InvalidInputError } from '../errors/domain-error';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors/request-errors';

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
 * here, up to the body limit, and parsed by Fastify's own JSON parser
 * (prototype-poisoning checks included). See docs/adr/0012.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  const bodyLimit = fastify.initialConfig.bodyLimit ?? 1_048_576;
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(['application/json', MERGE_PATCH_JSON], (request, payload, done) => {
    if (refusesMergePatch(request)) return done(null, new RefusedBody(new UnsupportedMediaTypeError()));
    readText(payload, request.headers['content-length'], bodyLimit).then(
      (text) => {
        if (text === undefined) return done(null, new RefusedBody(new PayloadTooLargeError()));
        parseJson(request, text, (error, body) => done(null, error ? new RefusedBody(new InvalidInputError(error.message)) : body));
      },
      (error: Error) => done(error, undefined),
    );
  });
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, new RefusedBody(new UnsupportedMediaTypeError())));
}

/** The body as UTF-8 text, or undefined as soon as it is known to exceed `limit` bytes (the rest is left unread). */
function readText(payload: Readable, contentLength: string | undefined, limit: number): Promise<string | undefined> {
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
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', reject);
  });
}
