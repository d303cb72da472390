import type { FastifyRequest } from 'fastify';
import type { CallerLookup } from '../../auth/application/caller-lookup';
import type { PlanLimits } from '../../auth/domain/plan';
import { callerOf } from '../../http/request-context';

/** Whom a request counts against: `key:<id>` for a valid key, else `ip:<address>`, one quota across the API. */
export async function trackerOf(request: FastifyRequest, callers: CallerLookup): Promise<string> {
  const caller = await callerOf(request, callers);
  return caller ? `key:${caller.keyId}` : `ip:${request.ip}`;
}

/** The limits a request is held to: its key's, or the Free plan's without a valid key. */
export async function limitsOf(request: FastifyRequest, callers: CallerLookup): Promise<PlanLimits> {
  const caller = await callerOf(request, callers);
  return caller ? caller.limits : callers.anonymousLimits();
}
