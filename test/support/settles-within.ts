/** Whether `promise` settles, fulfilled or rejected, within `ms`: false means it was still pending, as a request waiting on a lock is. */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = promise.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, pending]).finally(() => clearTimeout(timer));
}
