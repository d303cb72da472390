import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { PET_STATUSES, PetStatus } from '../../domain/pet-status';
import { PET_STATUS_SCHEMA } from './pet.response.dto';
import { toStrictInteger } from '../../../http/validation';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

const limitMessage = { message: `limit must be an integer from 1 to ${MAX_PAGE_SIZE}` };

export class ListPetsQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: 'Maximum number of pets to return',
  })
  @IsOptional()
  @Transform(toStrictInteger)
  @IsInt(limitMessage)
  @Min(1, limitMessage)
  @Max(MAX_PAGE_SIZE, limitMessage)
  limit: number = DEFAULT_PAGE_SIZE;

  @ApiPropertyOptional({ ...PET_STATUS_SCHEMA, description: 'Return only pets with this status' })
  @IsOptional()
  @IsIn(PET_STATUSES, { message: `status must be one of ${PET_STATUSES.join(', ')}` })
  status?: PetStatus;

  @ApiPropertyOptional({
    description: 'Where the page starts: copy it from the rel="next" Link of the previous page. Opaque; a malformed cursor is a 400.',
  })
  @IsOptional()
  @IsString({ message: 'cursor must be given once' })
  cursor?: string;
}
