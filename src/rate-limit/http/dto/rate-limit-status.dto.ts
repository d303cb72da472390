import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { MAX_ID } from '../../../http/validation';

const UNIX_SECONDS = { type: 'integer', format: 'int64', minimum: 0 } as const;

@ApiSchema({ name: 'RateLimitWindow', description: "One window of the caller's quota, as the rate-limit headers of its next request would start from." })
export class RateLimitWindowDto {
  @ApiProperty({
    enum: ['minute', 'day', 'answers'],
    description:
      "The window: the plan's `minute` (60 s) or `day` (86,400 s), or `answers` (60 s): every answer but a 429, a 304 included, up to ten times the minute's limit",
    example: 'minute',
  })
  name: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Requests allowed in the window', example: 60 })
  limit: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: "Requests left in the window now, as the account's keys share it; a ban is reported apart, in `ban`", example: 57 })
  remaining: number;

  @ApiProperty({ ...UNIX_SECONDS, description: 'Unix time, in seconds, at which the window resets', example: 1795219260 })
  reset: number;
}

@ApiSchema({ name: 'RateLimitAccount', description: 'The account whose keys share the quota.' })
export class RateLimitAccountDto {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 1, maximum: MAX_ID, description: "The account's id", example: 3 })
  id: number;
}

@ApiSchema({
  name: 'RateLimitStatus',
  description: "The caller's quota as it stands: its account's plan and windows, and its key's ban. Reading it spends none of them.",
})
export class RateLimitStatusDto {
  @ApiProperty({ description: "The account's plan: `free`, `pro`, `business` or `enterprise`", example: 'free' })
  plan: string;

  @ApiProperty({ type: RateLimitAccountDto })
  account: RateLimitAccountDto;

  @ApiProperty({ type: [RateLimitWindowDto], description: 'Every window of the plan, the minute first, then `answers`' })
  windows: RateLimitWindowDto[];

  // Inline rather than a $ref: OpenAPI 3.0 cannot make a referenced schema nullable.
  @ApiProperty({
    type: 'object',
    nullable: true,
    selfRequired: true,
    description: "The key's ban, or null when it is not banned: while it lasts every other request is refused 429 `api_key_banned`",
    properties: { until: { ...UNIX_SECONDS, description: 'Unix time, in seconds, at which the ban ends', example: 1795219800 } },
    required: ['until'],
  })
  ban: { until: number } | null;
}
