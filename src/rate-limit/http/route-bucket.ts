/**
 * A route with its own @Throttle for a window counts in a bucket of its own,
 * named `<window>@<Class>.<handler>` so that two controllers never share one.
 */
export function routeBucket(window: string, className: string, handlerName: string): string {
  return `${window}@${className}.${handlerName}`;
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
