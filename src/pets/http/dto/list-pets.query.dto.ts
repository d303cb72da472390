import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { DEFAULT_PAGE_SIZE, PageCursor, PageLimit } from '../../../http/page-query';
import { PET_STATUSES, PetStatus } from '../../domain/pet-status';
import { PET_STATUS_MESSAGE, PET_STATUS_SCHEMA } from './pet.response.dto';

/**
 * The query of `GET /v1/pets`, checked by the global ValidationPipe. A repeated
 * parameter arrives as an array and breaks its rule; an unknown one is refused,
 * so a typo never widens a query.
 */
export class ListPetsQueryDto {
  @PageLimit('pets')
  limit: number = DEFAULT_PAGE_SIZE;

  @ApiPropertyOptional({ ...PET_STATUS_SCHEMA, description: 'Return only pets with this status' })
  @IsOptional()
  @IsIn(PET_STATUSES, { message: PET_STATUS_MESSAGE })
  status?: PetStatus;

  @PageCursor()
  cursor?: string;
}
