import type { IncomingMessage } from 'node:http';

function first(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(',')[0].trim() || undefined;
}

/**
 * `scheme://host[:port]` as the caller addressed the service, for absolute links.
 * `X-Forwarded-Proto`/`-Host` count only when TRUST_PROXY says a proxy sets them.
 */
export function requestOrigin(request: IncomingMessage, trustProxy: boolean): string {
  const encrypted = (request.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  const proto = (trustProxy && first(request.headers['x-forwarded-proto'])) || (encrypted ? 'https' : 'http');
  const host = (trustProxy && first(request.headers['x-forwarded-host'])) || request.headers.host || 'localhost';
  return `${proto}://${host}`;
}
