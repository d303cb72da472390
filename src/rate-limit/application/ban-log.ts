import { Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AppConfig } from '../../config/app-config';
import type { RateLimitDecision } from '../domain/rate-limit-store';
import type { RateLimitedCaller } from '../domain/rate-limited-caller';

/**
 * Logs each ban once, with its end, on the instance whose request imposed it:
 * the refusal whose ban ends a whole ban length after it was judged. The
 * bans already told are remembered, so refusals judged in that same
 * millisecond do not tell it again.
 */
@Injectable()
export class BanLog {
  private readonly logger = new Logger('RateLimit');
  private readonly told = new LRUCache<string, number>({ max: 10_000 });
  private readonly banMs: number;

  constructor(config: AppConfig) {
    this.banMs = config.banSeconds * 1000;
  }

  note(caller: RateLimitedCaller, banSubject: string, decision: RateLimitDecision): void {
    const until = decision.binding.resetAtMs;
    if (!decision.banned || until - decision.atMs < this.banMs || this.told.get(banSubject) === until) return;
    this.told.set(banSubject, until);
    const route = banSubject.includes('@') ? banSubject.slice(banSubject.indexOf('@') + 1) : undefined;
    const keyId = caller.key?.id;
    this.logger.warn(
      { keyId, accountId: caller.key?.accountId, plan: caller.plan, ...(route && { route }), banUntil: new Date(until).toISOString(), banSeconds: this.banMs / 1000 },
      `API key ${keyId} banned until ${new Date(until).toISOString()} for sending while rate limited`,
    );
  }
}
