import type { components } from './schema';

export type ErrorBody = components['schemas']['Error'];
export type ErrorCode = components['schemas']['ErrorCode'];

/** The service answered with an error: its Error body and the response's headers. */
export class AnimalStoreError extends Error {
  readonly status: number;
  readonly code: ErrorCode;

  constructor(
    readonly body: ErrorBody,
    readonly headers: Headers,
  ) {
    super(`${body.status} ${body.code}: ${body.message}`);
    this.name = new.target.name;
    this.status = body.status;
    this.code = body.code;
  }

  /** Retry-After in seconds, when the answer carries one. */
  get retryAfterSeconds(): number | undefined {
    const value = Number(this.headers.get('Retry-After'));
    return Number.isFinite(value) && value >= 0 && this.headers.has('Retry-After') ? value : undefined;
  }
}

/** The key kept sending while limited and is banned; retrying earlier only prolongs it. */
export class ApiKeyBannedError extends AnimalStoreError {
  /** How long the ban lasts, in seconds from the answer. */
  get banSeconds(): number {
    return this.retryAfterSeconds ?? 0;
  }

  constructor(body: ErrorBody, headers: Headers) {
    super(body, headers);
    this.message = `${this.message} (banned for ${this.banSeconds} s more)`;
  }
}

/** No answer came (connection refused or cut, DNS, TLS) within the retry budget. */
export class AnimalStoreNetworkError extends Error {
  constructor(cause: unknown) {
    super(`No answer from the service: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = new.target.name;
  }
}
