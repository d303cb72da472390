import { DomainError } from '../domain/domain-error';
import {
  BAD_REQUEST,
  EXPECTATION_FAILED,
  NOT_FOUND,
  PAYLOAD_TOO_LARGE,
  REQUEST_HEADER_FIELDS_TOO_LARGE,
  UNSUPPORTED_MEDIA_TYPE,
  URI_TOO_LONG,
} from '../domain/error-code';

/** A request HTTP cannot make sense of: broken framing, a missing Host, a broken percent-encoding. */
export class MalformedRequestError extends DomainError {
  readonly code = BAD_REQUEST;
}

/** An `Expect` the service cannot meet: anything but `100-continue`. */
export class ExpectationFailedError extends DomainError {
  readonly code = EXPECTATION_FAILED;

  constructor() {
    super('The only expectation supported is Expect: 100-continue');
  }
}

export class RequestHeadersTooLargeError extends DomainError {
  readonly code = REQUEST_HEADER_FIELDS_TOO_LARGE;

  constructor() {
    super('The request headers are too large');
  }
}

/** The longest path parameter the router takes (Fastify's `maxParamLength`). */
export const MAX_PARAM_LENGTH = 100;

export class UriTooLongError extends DomainError {
  readonly code = URI_TOO_LONG;

  constructor() {
    super('The request path is too long');
  }
}

export class RouteNotFoundError extends DomainError {
  readonly code = NOT_FOUND;

  constructor() {
    super('Resource not found');
  }
}

/** A body refused before it was read in full: the connection is closed after the answer, as the client may still be sending. */
export abstract class UnreadBodyError extends DomainError {}

export class PayloadTooLargeError extends UnreadBodyError {
  readonly code = PAYLOAD_TOO_LARGE;

  constructor() {
    super('Request body is too large');
  }
}

export class UnsupportedMediaTypeError extends UnreadBodyError {
  readonly code = UNSUPPORTED_MEDIA_TYPE;

  constructor() {
    super('Content-Type must be application/json');
  }
}
