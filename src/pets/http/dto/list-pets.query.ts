import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { PET_STATUSES, PetStatus } from '../../domain/pet-status';
import { toStrictInteger } from '../../../http/validation';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

const limitMessage = { message: `limit must be an integer from 1 to ${MAX_PAGE_SIZE}` };

export class ListPetsQuery {
  @IsOptional()
  @Transform(toStrictInteger)
  @IsInt(limitMessage)
  @Min(1, limitMessage)
  @Max(MAX_PAGE_SIZE, limitMessage)
  limit: number = DEFAULT_PAGE_SIZE;

  @IsOptional()
  @IsIn(PET_STATUSES, { message: `status must be one of ${PET_STATUSES.join(', ')}` })
  status?: PetStatus;

  @IsOptional()
  @IsString({ message: 'cursor must be given once' })
  cursor?: string;
}
