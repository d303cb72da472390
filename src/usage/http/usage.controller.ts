import { Controller, Get, Query } from '@nestjs/common';
import { Throttle } from '@nestjs/throttler';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiStandardResponses } from '../../docs/api-standard-responses';
import type { KeyCaller } from '../../callers/caller';
import { CurrentCaller } from '../../http/request-context';
import { OwnBan } from '../../rate-limit/http/own-ban.decorator';
import { KeyUsage, UsageReport, UsageReports } from '../application/usage-reports';
import { UsageQueryDto } from './dto/usage-query.dto';
import { KeyUsageDto, UsageReportDto } from './dto/usage-report.dto';

/** How often an account may ask for its usage, as for its quota. */
export const USAGE_PER_MINUTE = 30;

@ApiTags('usage')
@ApiBearerAuth()
@Controller({ path: 'usage', version: '1' })
export class UsageController {
  constructor(private readonly reports: UsageReports) {}

  /** Limited on its own, as GET /v1/rate_limit is, so reading usage spends none of the plan's quota. */
  @Get()
  @Throttle({ default: { limit: USAGE_PER_MINUTE, ttl: 60_000 } })
  @OwnBan()
  @ApiOperation({
    operationId: 'getUsage',
    summary: "The caller's account's usage",
    description:
      "The answers the caller's account was given, per UTC day and per key, by outcome (2xx, 304, other 4xx, 429, 5xx), over the last `days` (default 7) or from `from` to `to`. " +
      `Counts are written every few seconds, so the last seconds may not show yet; days are kept as long as the service is configured to (default 90). ` +
      `Spends no quota: it is limited on its own, to ${USAGE_PER_MINUTE} a minute per account. Any key may ask; no scope is needed. Another account's usage is never shown.`,
  })
  @ApiStandardResponses({ success: { status: 200, description: "The account's usage", type: UsageReportDto } })
  async getUsage(@CurrentCaller() caller: KeyCaller, @Query() query: UsageQueryDto): Promise<UsageReportDto> {
    return toDto(caller.accountId, await this.reports.forAccount(caller.accountId, query));
  }
}

function toDto(accountId: number, report: UsageReport): UsageReportDto {
  const keys = (list: readonly KeyUsage[]): KeyUsageDto[] => list.map(({ keyId, counts }) => ({ id: keyId, counts }));
  return {
    account: { id: accountId },
    from: report.from,
    to: report.to,
    total: report.total,
    keys: keys(report.keys),
    days: report.days.map(({ day, total, keys: dayKeys }) => ({ day, total, keys: keys(dayKeys) })),
  };
}
