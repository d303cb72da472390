import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsDefined, IsIn, IsString, Matches, ValidateIf } from 'class-validator';
import { CodePointLength, IsId, IsWellFormedUnicode } from '../../../http/validation';
import { MAX_PET_NAME_LENGTH } from '../../domain/pet';
import { DEFAULT_PET_STATUS, PET_STATUSES, PetStatus } from '../../domain/pet-status';
import { ID_SCHEMA, PET_NAME_SCHEMA, PET_STATUS_MESSAGE, PET_STATUS_SCHEMA } from './pet.response.dto';

const NAME_MESSAGE = `$property must have 1 to ${MAX_PET_NAME_LENGTH} characters and not be only white space`;

/**
 * A pet's name, as a create and a change check it. class-validator checks a
 * field's rules in the order they were declared (@IsDefined always first) and
 * reports only the first one broken, so the type check comes first here.
 */
export const PetNameRules = (): PropertyDecorator =>
  applyDecorators(
    IsString({ message: '$property must be a string' }),
    IsWellFormedUnicode(),
    Matches(/\S/, { message: NAME_MESSAGE }),
    CodePointLength(1, MAX_PET_NAME_LENGTH, { message: NAME_MESSAGE }),
  );

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
  @PetNameRules()
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
