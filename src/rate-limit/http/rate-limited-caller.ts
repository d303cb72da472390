import type { FastifyRequest } from 'fastify';
import type { CallerLookup } from '../../auth/application/caller-lookup';
import type { PlanLimits } from '../../auth/domain/plan';
import { callerOf } from '../../http/request-context';

/** Whose quota a request counts in: `account:<id>` for a valid key, shared by the account's keys, else `ip:<address>`. */
export async function trackerOf(request: FastifyRequest, callers: CallerLookup): Promise<string> {
  const caller = await callerOf(request, callers);
  return caller ? `account:${caller.accountId}` : `ip:${request.ip}`;
}

/** Who is banned for a request's rejections: its key (`key:<id>`), never the key's whole account; none for an address. */
export async function banSubjectOf(request: FastifyRequest, callers: CallerLookup): Promise<string | undefined> {
  const caller = await callerOf(request, callers);
  return caller ? `key:${caller.keyId}` : undefined;
}

/** The limits a request is held to: its key's, or the Free plan's without a valid key. */
export async function limitsOf(request: FastifyRequest, callers: CallerLookup): Promise<PlanLimits> {
  const caller = await callerOf(request, callers);
  return caller ? caller.limits : callers.anonymousLimits();
}
