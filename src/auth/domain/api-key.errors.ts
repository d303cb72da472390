import { DomainError } from '../../errors/domain/domain-error';
import { type ErrorCode, NOT_FOUND, UNAUTHORIZED, VALIDATION_FAILED } from '../../errors/domain/error-code';

export const INSUFFICIENT_SCOPE = 'insufficient_scope' satisfies ErrorCode;

export class ApiKeyNotFoundError extends DomainError {
  readonly code = NOT_FOUND;

  constructor(readonly keyId: number) {
    super(`No API key with id ${keyId}`);
  }
}

export class InvalidApiKeyRequestError extends DomainError {
  readonly code = VALIDATION_FAILED;
}

/** Why a plan and its own numbers do not go together. */
export type PlanLimitsProblem = 'limits-on-other-plan' | 'enterprise-without-limits' | 'minute-over-day';

const PLAN_LIMITS_MESSAGES: Readonly<Record<PlanLimitsProblem, string>> = {
  'limits-on-other-plan': 'perMinute and perDay apply to the enterprise plan only',
  'enterprise-without-limits': 'an enterprise plan needs perMinute and perDay (integers from 1 to 4294967295)',
  'minute-over-day': 'perMinute cannot be larger than perDay',
};

/** Enterprise carries its own numbers, every other plan takes its numbers from the plan table. */
export class InvalidPlanLimitsError extends InvalidApiKeyRequestError {
  constructor(readonly problem: PlanLimitsProblem) {
    super(PLAN_LIMITS_MESSAGES[problem]);
  }
}

/** A key's name that is too long, or an account's name that is empty or too long. */
export class InvalidNameError extends InvalidApiKeyRequestError {
  constructor(
    readonly of: 'key' | 'account',
    readonly maxLength: number,
  ) {
    super(of === 'key' ? `a key's name has at most ${maxLength} characters` : `an account's name has 1 to ${maxLength} characters`);
  }
}

/** A scope no key can have, or no scope at all. */
export class InvalidScopesError extends InvalidApiKeyRequestError {
  constructor(
    readonly unknownScope: string | null,
    known: readonly string[],
  ) {
    const scopes = known.join(', ');
    super(unknownScope === null ? `a key needs at least one scope of ${scopes}` : `unknown scope "${unknownScope}"; a key may have ${scopes}`);
  }
}

/** Joining an account takes its plan as it is: a different plan or different numbers is refused, not applied. */
export class AccountOnAnotherPlanError extends InvalidApiKeyRequestError {
  constructor(
    readonly accountName: string,
    readonly accountPlan: string,
    readonly requestedPlan: string,
  ) {
    super(`account "${accountName}" is on ${accountPlan}, not ${requestedPlan}; change the account's plan to join it on another`);
  }
}

/** Missing, malformed, unknown or revoked: deliberately one error, so callers cannot tell which. */
export class UnauthorizedError extends DomainError {
  readonly code = UNAUTHORIZED;

  constructor() {
    super('A valid API key is required: send Authorization: Bearer <key>');
  }
}

/** Another command created the account between our look-up and our insert; the caller looks again and joins it. */
export class AccountCreatedMeanwhileError extends DomainError {
  readonly code = VALIDATION_FAILED;

  constructor(readonly accountName: string) {
    super(`account "${accountName}" was created by another command at the same moment; try again`);
  }
}

/** A valid key that may not do this operation: its scopes do not include the one the route requires. */
export class InsufficientScopeError extends DomainError {
  readonly code = INSUFFICIENT_SCOPE;

  constructor(readonly requiredScope: string) {
    super(`This API key lacks the scope ${requiredScope}, which this operation needs`);
  }
}
