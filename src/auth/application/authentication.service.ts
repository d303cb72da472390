import { Injectable } from '@nestjs/common';
import type { ApiKey } from '../domain/api-key';
import type { PlanLimits } from '../domain/plan';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { ApiKeysService } from './api-keys.service';
import { KeyUsageRecorder } from './key-usage-recorder';

/** An active key and the limits its account's plan gives it. */
export interface AuthenticatedKey {
  readonly key: ApiKey;
  readonly limits: PlanLimits;
}

/** Who a bearer token names: an active key (its use recorded), or no one, who gets the Free plan's limits. */
@Injectable()
export class AuthenticationService {
  constructor(
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly keys: ApiKeysService,
    private readonly usage: KeyUsageRecorder,
  ) {}

  async authenticate(token: string): Promise<AuthenticatedKey | null> {
    const key = await this.authenticator.authenticate(token);
    if (!key) return null;
    this.usage.record(key.id);
    return { key, limits: this.keys.limitsOf(key) };
  }

  /** Whether authenticating the token would ask the store about a key this instance has not verified lately. */
  wouldLookUpUnverified(token: string): boolean {
    return this.authenticator.wouldLookUpUnverified(token);
  }

  /** What a request without a valid key may use, counted per client address. */
  anonymousLimits(): PlanLimits {
    return this.keys.limitsOfPlan('free');
  }
}
