import { setFlagsFromString } from 'node:v8';

/** How far V8 lets the old space grow past what survived the last full collection: 30% more. */
export const HEAP_GROWING_PERCENT = 30;

const FLAG = '--heap-growing-percent';
/** The flag as an operator may give it: V8 reads `-` and `_` alike, and takes the value only after `=`. */
const GIVEN = /^--heap[-_]growing[-_]percent=/;

/**
 * Under steady load V8 lets the old space grow up to four times what survives
 * a full collection before the next one, and the resident size follows; this
 * keeps it at 30% more (docs/adr/0020, 0026). A process started with its
 * own `--heap-growing-percent` keeps the operator's value.
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv, setFlags: (flags: string) => void = setFlagsFromString): boolean {
  if (execArgv.some((arg) => GIVEN.test(arg))) return false;
  setFlags(`${FLAG}=${HEAP_GROWING_PERCENT}`);
  return true;
}
