import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsDefined, IsIn, ValidateIf } from 'class-validator';
import { IsId } from '../../../http/validation';
import { DEFAULT_PET_STATUS, PET_STATUSES, PetStatus } from '../../domain/pet-status';
import { IsPetName } from './pet-name.decorator';
import { ID_SCHEMA, PET_NAME_SCHEMA, PET_STATUS_MESSAGE, PET_STATUS_SCHEMA } from './pet.response.dto';

/** A pet's status: one of the enumeration, never null. */
export const PetStatusRules = (): PropertyDecorator => IsIn(PET_STATUSES, { message: PET_STATUS_MESSAGE });

/** Checks a field's rules only when it is present: unlike @IsOptional(), which would let null through. */
export const WhenPresent = (): PropertyDecorator => ValidateIf((_body, value) => value !== undefined);

export const CATEGORY_ID_SCHEMA = { ...ID_SCHEMA, description: 'Identifier of the category the animal belongs to', example: 3 } as const;

/** The body of `POST /v1/pets`, checked by the global ValidationPipe. */
@ApiSchema({ name: 'NewPet', description: 'An animal to add; the service assigns its id.' })
export class CreatePetDto {
  @ApiProperty(PET_NAME_SCHEMA)
  @IsDefined({ message: '$property is required' })
  @IsPetName()
  name: string;

  @ApiProperty(CATEGORY_ID_SCHEMA)
  @IsDefined({ message: '$property is required' })
  @IsId()
  categoryId: number;

  @ApiPropertyOptional({ ...PET_STATUS_SCHEMA, default: DEFAULT_PET_STATUS })
  @WhenPresent()
  @PetStatusRules()
  status?: PetStatus;
}
