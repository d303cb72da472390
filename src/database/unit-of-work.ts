/**
 * Runs work as one unit against the store: everything it writes through the
 * repositories is committed together when it resolves, and nothing of it when
 * it throws or the process dies first. The unit is ambient: repositories
 * called while the work runs join it, however deep in the call they are.
 */
export abstract class UnitOfWork {
  /** A unit of work started inside another one joins it. */
  abstract run<T>(work: () => Promise<T>): Promise<T>;
}
