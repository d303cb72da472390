import type { FastifyRequest } from 'fastify';

/** The versioned interface. Operational routes (health, metrics, docs) live outside it. */
export const API_PREFIX = '/v1';

export function isApiRequest(request: Pick<FastifyRequest, 'url'>): boolean {
  return request.url === API_PREFIX || request.url.startsWith(`${API_PREFIX}/`) || request.url.startsWith(`${API_PREFIX}?`);
}
