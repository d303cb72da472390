import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsDefined, IsIn, IsString, ValidateBy, ValidateIf } from 'class-validator';
import { MAX_PET_NAME_LENGTH } from '../../domain/pet';
import { DEFAULT_PET_STATUS, PET_STATUSES, PetStatus } from '../../domain/pet-status';
import { IsId } from '../../../http/validation';
import { ID_SCHEMA, PET_NAME_SCHEMA, PET_STATUS_SCHEMA } from './pet.response.dto';

/** Length in characters (code points), as MySQL's utf8mb4 VARCHAR counts them. */
function isPetName(value: unknown): boolean {
  if (typeof value !== 'string' || !/\S/.test(value)) return false;
  return [...value].length <= MAX_PET_NAME_LENGTH;
}

@ApiSchema({ name: 'NewPet', description: 'An animal to add; the service assigns its id.' })
export class CreatePetDto {
  @ApiProperty(PET_NAME_SCHEMA)
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

  @ApiProperty({ ...ID_SCHEMA, description: 'Identifier of the category the animal belongs to', example: 3 })
  @IsDefined({ message: 'categoryId is required' })
  @IsId()
  categoryId: number;

  @ApiPropertyOptional({ ...PET_STATUS_SCHEMA, default: DEFAULT_PET_STATUS })
  // `null` is a wrong type, not an absent field, so IsOptional (which skips null) is not used.
  @ValidateIf((dto: CreatePetDto) => dto.status !== undefined)
  @IsIn(PET_STATUSES, { message: `status must be one of ${PET_STATUSES.join(', ')}` })
  status?: PetStatus;
}
