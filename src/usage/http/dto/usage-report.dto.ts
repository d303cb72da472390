import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { MAX_ID } from '../../../http/validation';

const COUNT = { type: 'integer', minimum: 0 } as const;
const ID = { type: 'integer', format: 'int64', minimum: 1, maximum: MAX_ID } as const;

@ApiSchema({ name: 'UsageCounts', description: 'Answers by outcome.' })
export class UsageCountsDto {
  @ApiProperty({ ...COUNT, description: 'Answers 2xx', example: 120 })
  success: number;

  @ApiProperty({ ...COUNT, description: 'Answers 304 Not Modified', example: 30 })
  notModified: number;

  @ApiProperty({ ...COUNT, description: 'Answers 4xx other than 429', example: 2 })
  clientError: number;

  @ApiProperty({ ...COUNT, description: 'Answers 429 (rate limited or banned)', example: 0 })
  rateLimited: number;

  @ApiProperty({ ...COUNT, description: 'Answers 5xx', example: 0 })
  serverError: number;
}

@ApiSchema({ name: 'KeyUsage', description: "One key's answers." })
export class KeyUsageDto {
  @ApiProperty({ ...ID, description: "The key's id", example: 12 })
  id: number;

  @ApiProperty({ type: UsageCountsDto })
  counts: UsageCountsDto;
}

@ApiSchema({ name: 'DayUsage', description: "The account's answers on one UTC day." })
export class DayUsageDto {
  @ApiProperty({ type: 'string', format: 'date', description: 'The UTC day', example: '2026-12-07' })
  day: string;

  @ApiProperty({ type: UsageCountsDto, description: 'Every key of the account together' })
  total: UsageCountsDto;

  @ApiProperty({ type: [KeyUsageDto], description: 'Each key answered that day, by id' })
  keys: KeyUsageDto[];
}

@ApiSchema({ name: 'UsageAccount', description: 'The account the report covers: the caller\'s own.' })
export class UsageAccountDto {
  @ApiProperty({ ...ID, description: "The account's id", example: 3 })
  id: number;
}

@ApiSchema({
  name: 'Usage',
  description: "The caller's account's answers per UTC day, per key and by outcome. Counts are written in batches, so the last few seconds may not show yet.",
})
export class UsageReportDto {
  @ApiProperty({ type: UsageAccountDto })
  account: UsageAccountDto;

  @ApiProperty({ type: 'string', format: 'date', description: 'The first UTC day covered', example: '2026-12-01' })
  from: string;

  @ApiProperty({ type: 'string', format: 'date', description: 'The last UTC day covered', example: '2026-12-07' })
  to: string;

  @ApiProperty({ type: UsageCountsDto, description: 'Every day and key together' })
  total: UsageCountsDto;

  @ApiProperty({ type: [KeyUsageDto], description: 'Each key of the account answered in the range, by id, over the whole range' })
  keys: KeyUsageDto[];

  @ApiProperty({ type: [DayUsageDto], description: 'Each day with answers, oldest first; days without any are left out' })
  days: DayUsageDto[];
}
