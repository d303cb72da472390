import { Injectable } from '@nestjs/common';
import type { Caller } from '../domain/caller';
import type { PlanLimits } from '../domain/plan';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { ApiKeysService } from './api-keys.service';
import { KeyUsageRecorder } from './key-usage-recorder';

/** `Bearer <token>`, the scheme name in any case; anything else yields no token. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^bearer[ \t]+([^\s]+)[ \t]*$/i.exec(authorization ?? '');
  return match?.[1];
}

/**
 * Who a request comes from, as every module that needs to know asks it: the
 * credentials it sends (an Authorization value) name an active key, or no one.
 * The parsing of the value sits here rather than in http/ because the rate
 * limits, another module, need the caller too and reach auth only through
 * its application services.
 */
@Injectable()
export class CallerLookup {
  constructor(
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly keys: ApiKeysService,
    private readonly usage: KeyUsageRecorder,
  ) {}

  /** The caller that an Authorization value names; null when it names no active key. */
  async callerFor(authorization: string | undefined): Promise<Caller | null> {
    const token = bearerToken(authorization);
    const key = token === undefined ? null : await this.authenticator.authenticate(token);
    if (!key) return null;
    this.usage.record(key.id);
    return { keyId: key.id, accountId: key.account.id, limits: this.keys.limitsOf(key) };
  }

  /** What a request without a valid key may use: the Free plan's limits. */
  anonymousLimits(): PlanLimits {
    return this.keys.limitsOfPlan('free');
  }
}
