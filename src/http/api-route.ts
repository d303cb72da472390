import type { FastifyRequest } from 'fastify';

/** The versioned interface. Operational routes (health, metrics, docs) live outside it. */
export const API_PREFIX = '/v1';
// Built once: every guard of every request asks.
const UNDER_PREFIX = `${API_PREFIX}/`;
const PREFIX_QUERY = `${API_PREFIX}?`;

export function isApiRequest(request: Pick<FastifyRequest, 'url'>): boolean {
  const { url } = request;
  return url === API_PREFIX || url.startsWith(UNDER_PREFIX) || url.startsWith(PREFIX_QUERY);
}
