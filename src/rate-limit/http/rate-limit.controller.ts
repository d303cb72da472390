import { Controller, Get } from '@nestjs/common';
import { Throttle } from '@nestjs/throttler';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiStandardResponses } from '../../docs/api-standard-responses';
import type { KeyCaller } from '../../callers/caller';
import { CurrentCaller } from '../../http/request-context';
import { planWindowsOf, RateLimiter } from '../application/rate-limiter';
import { RateLimitStatusDto } from './dto/rate-limit-status.dto';
import { OwnBan } from './own-ban.decorator';
import { banSubjectOf } from '../domain/rate-limited-caller';
import { rateLimitedCallerOf } from './rate-limited-caller';

/** How often an account may ask for its quota: enough to poll every two seconds, too little to flood. */
export const RATE_LIMIT_STATUS_PER_MINUTE = 30;

@ApiTags('rate limits')
@ApiBearerAuth()
@Controller({ path: 'rate_limit', version: '1' })
export class RateLimitController {
  constructor(private readonly limiter: RateLimiter) {}

  /**
   * Read with a peek, so it spends none of the quota it reports. It counts in
   * a minute bucket of its own instead of the plan's windows, and bans apart,
   * so a banned key can still read when its ban ends.
   */
  @Get()
  @Throttle({ default: { limit: RATE_LIMIT_STATUS_PER_MINUTE, ttl: 60_000 } })
  @OwnBan()
  @ApiOperation({
    operationId: 'getRateLimit',
    summary: "The caller's quota",
    description:
      "The key's plan and account, and for each window of the plan its limit, the requests left and when it resets, and the key's ban if any. " +
      'A window reads as it stands even while the key is banned: the ban is reported apart, in `ban`. ' +
      `Spends no quota: it is limited on its own, to ${RATE_LIMIT_STATUS_PER_MINUTE} a minute per account, and its rate-limit headers ` +
      'describe that limit (`"minute@getRateLimit"`). It answers while the key is banned. Any key may ask; no scope is needed.',
  })
  @ApiStandardResponses({ success: { status: 200, description: "The caller's quota as it stands", type: RateLimitStatusDto } })
  async getRateLimit(@CurrentCaller() caller: KeyCaller): Promise<RateLimitStatusDto> {
    const limited = rateLimitedCallerOf(caller);
    const windows = planWindowsOf(limited.limits);
    // The account's windows as they stand, apart from the key's ban, which would report every window as spent.
    const [quota, withBan] = await Promise.all([this.limiter.peek(limited.tracker, windows), this.limiter.peek(limited.tracker, windows, banSubjectOf(limited))]);
    return {
      plan: caller.plan,
      account: { id: caller.accountId },
      windows: quota.windows.map(({ name, limit, remaining, resetAtMs }) => ({ name, limit, remaining, reset: Math.ceil(resetAtMs / 1000) })),
      ban: withBan.banned ? { until: Math.ceil(withBan.binding.resetAtMs / 1000) } : null,
    };
  }
}
