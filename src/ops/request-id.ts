import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Ids from UUIDs, ULIDs, hex and base64 tracers pass; anything else could forge or flood log lines. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._~:+/=-]{1,128}$/;

/** The caller's `X-Request-Id` when it is a sane token, otherwise a new UUID. */
export function requestIdFor(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? undefined : header;
  return value !== undefined && SANE_REQUEST_ID.test(value) ? value : randomUUID();
}
