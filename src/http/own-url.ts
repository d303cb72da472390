import type { AppConfig } from '../config/app-config';

/**
 * The absolute URL of a path under /v1 (`/v1/pets?…`), on the base address of
 * the instance's own environment: a request's Host or X-Forwarded-* never
 * picks where a client that follows a link sends its key.
 */
export function ownUrl(config: Pick<AppConfig, 'ownBaseUrl'>, path: `/v1/${string}` | '/v1'): string {
  return `${config.ownBaseUrl.slice(0, -'/v1'.length)}${path}`;
}
