import type { Caller } from '../../callers/caller';
import { ADDRESS_TRACKER_PREFIX } from '../domain/rate-limit-store';

/** Whose quota a request counts in: `account:<id>` for a key, shared by the account's keys, else `ip:<address>`. */
export function trackerOf(caller: Caller): string {
  return caller.kind === 'key' ? `account:${caller.accountId}` : `${ADDRESS_TRACKER_PREFIX}${caller.address}`;
}

/**
 * Who is banned for a request's rejections: its key (`key:<id>`), never the
 * key's whole account; on an @OwnBan() route, the key on that route alone
 * (`key:<id>@<route>`). None for an address.
 */
export function banSubjectOf(caller: Caller, ownBanRoute?: string): string | undefined {
  if (caller.kind !== 'key') return undefined;
  return ownBanRoute === undefined ? `key:${caller.keyId}` : `key:${caller.keyId}@${ownBanRoute}`;
}
