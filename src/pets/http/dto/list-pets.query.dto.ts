import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { parseDecimal } from '../../../http/validation';
import { PET_STATUSES, PetStatus } from '../../domain/pet-status';
import { PET_STATUS_MESSAGE, PET_STATUS_SCHEMA } from './pet.response.dto';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

const LIMIT_MESSAGE = `$property must be an integer from 1 to ${MAX_PAGE_SIZE}`;

/**
 * The query of `GET /v1/pets`, checked by the global ValidationPipe. A repeated
 * parameter arrives as an array and breaks its rule; an unknown one is refused,
 * so a typo never widens a query.
 */
export class ListPetsQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: 'Maximum number of pets to return',
  })
  // Plain decimal digits only: anything else becomes NaN, which @IsInt refuses.
  @Transform(({ value }) => parseDecimal(value))
  @IsInt({ message: LIMIT_MESSAGE })
  @Min(1, { message: LIMIT_MESSAGE })
  @Max(MAX_PAGE_SIZE, { message: LIMIT_MESSAGE })
  limit: number = DEFAULT_PAGE_SIZE;

  @ApiPropertyOptional({ ...PET_STATUS_SCHEMA, description: 'Return only pets with this status' })
  @IsOptional()
  @IsIn(PET_STATUSES, { message: PET_STATUS_MESSAGE })
  status?: PetStatus;

  @ApiPropertyOptional({
    description: 'Where the page starts: copy it from the rel="next" Link of the previous page. Opaque; a malformed cursor is a 400.',
  })
  @IsOptional()
  @IsString({ message: '$property must be given once' })
  cursor?: string;
}
