import type { onRequestHookHandler } from 'fastify';

const API_PATH = /^\/v1(?:[/?]|$)/;

/** Whether a request target lies under /v1, where every answer depends on the caller's key. */
export function isApiPath(url: string): boolean {
  return API_PATH.test(url);
}

/**
 * Every /v1 answer depends on the Authorization header (the caller's pets,
 * quota, scopes): `Vary: Authorization` and `Cache-Control: private` keep a
 * shared cache from handing one caller's answer to another. A global
 * onRequest hook rather than a route's, so that a /v1 address no route
 * matches is answered so too; written early, so a route that sends
 * `no-store` replaces it.
 */
export const markPrivateAnswer: onRequestHookHandler = function markPrivateAnswer(request, reply, done) {
  if (isApiPath(request.url)) {
    const vary = reply.getHeader('vary');
    reply.header('Cache-Control', 'private').header('Vary', vary ? `${String(vary)}, Authorization` : 'Authorization');
  }
  done();
};
