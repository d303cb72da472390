import { InvalidInputError } from '../../errors/domain/domain-error';

/** A report's days that cannot be served: `days` with `from`/`to`, `from` after `to`, a span too long. */
export class InvalidUsageRangeError extends InvalidInputError {}
