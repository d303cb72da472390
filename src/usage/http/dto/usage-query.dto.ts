import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { parseDecimal } from '../../../http/validation';
import { MAX_REPORT_DAYS } from '../../application/usage-reports';

const DAYS_MESSAGE = `$property must be an integer from 1 to ${MAX_REPORT_DAYS}`;
const DATE_MESSAGE = '$property must be a date YYYY-MM-DD';

/** A calendar date written YYYY-MM-DD that exists (2026-02-30 does not). */
@ValidatorConstraint({ name: 'isCalendarDate' })
class IsCalendarDate implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
  }
}

/** The query of `GET /v1/usage`: the last `days`, or `from` to `to`; UTC days, both ends included. */
export class UsageQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_REPORT_DAYS,
    description: 'The last this many UTC days, today included (default 7). Not with `from` or `to`.',
  })
  @IsOptional()
  @Transform(({ value }) => parseDecimal(value))
  @IsInt({ message: DAYS_MESSAGE })
  @Min(1, { message: DAYS_MESSAGE })
  @Max(MAX_REPORT_DAYS, { message: DAYS_MESSAGE })
  days?: number;

  @ApiPropertyOptional({ type: 'string', format: 'date', description: `The first UTC day of the report; with \`to\`, at most ${MAX_REPORT_DAYS} days`, example: '2026-12-01' })
  @IsOptional()
  @Validate(IsCalendarDate, { message: DATE_MESSAGE })
  from?: string;

  @ApiPropertyOptional({ type: 'string', format: 'date', description: 'The last UTC day of the report (default today)', example: '2026-12-07' })
  @IsOptional()
  @Validate(IsCalendarDate, { message: DATE_MESSAGE })
  to?: string;
}
