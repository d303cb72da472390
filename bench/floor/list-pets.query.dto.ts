import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { PET_STATUSES } from '../baseline/work';

const LIMIT_MESSAGE = '$property must be an integer from 1 to 100';

/**
 * The floor's query of `GET /v1/pets`: the service's rules for it. A repeated
 * parameter arrives as an array and breaks its rule; the pipe refuses an
 * unknown one. The cursor stays as sent, to be decoded by the list's work.
 */
export class ListPetsQueryDto {
  // Plain decimal digits only: anything else becomes NaN, which @IsInt refuses.
  @Transform(({ value }) => (typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : NaN))
  @IsInt({ message: LIMIT_MESSAGE })
  @Min(1, { message: LIMIT_MESSAGE })
  @Max(100, { message: LIMIT_MESSAGE })
  limit: number = 20;

  @IsOptional()
  @IsIn(PET_STATUSES, { message: `$property must be one of ${PET_STATUSES.join(', ')}` })
  status?: string;

  @IsOptional()
  @IsString({ message: '$property must be given once' })
  cursor?: string;
}
