/** A window's name by its length: the plan's `minute` and `day`, else its seconds (`30s`). */
function windowNameOf(durationMs: number): string {
  if (durationMs === 60_000) return 'minute';
  if (durationMs === 86_400_000) return 'day';
  return `${Math.ceil(durationMs / 1000)}s`;
}

/**
 * A route with its own @Throttle counts in a bucket of its own, named
 * `<window>@<Class>.<handler>` so that two controllers never share one.
 */
export function ownBucket(durationMs: number, className: string, handlerName: string): string {
  return `${windowNameOf(durationMs)}@${className}.${handlerName}`;
}

/**
 * The name a client sees for a bucket in the RateLimit fields: the window's
 * name, and for a route's own bucket `<window>@<handler>`; handlers are named
 * after their operationId, which clients know, while the class name is ours.
 */
export function policyNameOf(bucket: string): string {
  const at = bucket.indexOf('@');
  return at < 0 ? bucket : `${bucket.slice(0, at)}@${bucket.slice(bucket.lastIndexOf('.') + 1)}`;
}
