import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsId } from '../../../http/validation';
import type { PetChanges } from '../../domain/pet';
import { PetStatus } from '../../domain/pet-status';
import { CATEGORY_ID_SCHEMA, PetStatusRules, WhenPresent } from './create-pet.dto';
import { IsPetName } from './pet-name.decorator';
import { PET_NAME_SCHEMA, PET_STATUS_SCHEMA } from './pet.response.dto';

/**
 * The body of `PATCH /v1/pets/{petId}`: a JSON merge patch (RFC 7396) of the
 * fields a create sets, each with a create's rules. An absent field keeps its
 * value; null, which would remove a field, is refused, as every field is required.
 */
@ApiSchema({ name: 'PetPatch', description: 'The fields to change, at least one; an absent field keeps its value. `null` is refused: every field of a Pet is required.' })
export class PatchPetDto {
  @ApiPropertyOptional(PET_NAME_SCHEMA)
  @WhenPresent()
  @IsPetName()
  name?: string;

  @ApiPropertyOptional(CATEGORY_ID_SCHEMA)
  @WhenPresent()
  @IsId()
  categoryId?: number;

  @ApiPropertyOptional({ ...PET_STATUS_SCHEMA, description: 'Availability status: `available` to `pending` or `sold`, `pending` to `available` or `sold`; `sold` is final' })
  @WhenPresent()
  @PetStatusRules()
  status?: PetStatus;
}

/** The changes a patch names; undefined for a patch that names none (`{}`), which the route refuses. */
export function changesOf(patch: PatchPetDto): PetChanges | undefined {
  const changes = Object.fromEntries(Object.entries({ name: patch.name, categoryId: patch.categoryId, status: patch.status }).filter(([, value]) => value !== undefined));
  return Object.keys(changes).length ? (changes as PetChanges) : undefined;
}
