import type { Caller } from '../../http/caller';

/** Whose quota a request counts in: `account:<id>` for a key, shared by the account's keys, else `ip:<address>`. */
export function trackerOf(caller: Caller): string {
  return caller.kind === 'key' ? `account:${caller.accountId}` : `ip:${caller.address}`;
}

/** Who is banned for a request's rejections: its key (`key:<id>`), never the key's whole account; none for an address. */
export function banSubjectOf(caller: Caller): string | undefined {
  return caller.kind === 'key' ? `key:${caller.keyId}` : undefined;
}
