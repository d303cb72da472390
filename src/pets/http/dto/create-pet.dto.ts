import { IsDefined, IsIn, IsString, ValidateBy, ValidateIf } from 'class-validator';
import { MAX_PET_NAME_LENGTH } from '../../domain/pet';
import { PET_STATUSES, PetStatus } from '../../domain/pet-status';
import { IsId } from '../../../http/validation';

/** Length in characters (code points), as MySQL's utf8mb4 VARCHAR counts them. */
function isPetName(value: unknown): boolean {
  if (typeof value !== 'string' || !/\S/.test(value)) return false;
  return [...value].length <= MAX_PET_NAME_LENGTH;
}

export class CreatePetDto {
  @IsDefined({ message: 'name is required' })
  @IsString({ message: 'name must be a string' })
  @ValidateBy({
    name: 'isPetName',
    validator: {
      validate: isPetName,
      defaultMessage: () => `name must have 1 to ${MAX_PET_NAME_LENGTH} characters and not be only white space`,
    },
  })
  name: string;

  @IsDefined({ message: 'categoryId is required' })
  @IsId()
  categoryId: number;

  // `null` is a wrong type, not an absent field, so IsOptional (which skips null) is not used.
  @ValidateIf((dto: CreatePetDto) => dto.status !== undefined)
  @IsIn(PET_STATUSES, { message: `status must be one of ${PET_STATUSES.join(', ')}` })
  status?: PetStatus;
}
