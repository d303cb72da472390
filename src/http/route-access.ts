import type { ExecutionContext } from '@nestjs/common';
import type { Caller } from '../callers/caller';

/**
 * Whether a route lets a caller in. AccessGuard refuses whom it does not; the
 * rate limits, which judge the request before it, ask it so that only a
 * request that will be served takes a place in flight, and a refused one's
 * count is not put off for a 304. A port, bound by auth.
 */
export abstract class RouteAccess {
  abstract admits(caller: Caller, context: ExecutionContext): boolean;
}
