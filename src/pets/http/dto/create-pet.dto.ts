import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsDefined, IsIn, IsString, Matches, ValidateBy, ValidateIf } from 'class-validator';
import { CodePointLength, IsId, IsWellFormedUnicode } from '../../../http/validation';
import { hasUnsafeNameCharacter, MAX_PET_NAME_LENGTH } from '../../domain/pet';
import { DEFAULT_PET_STATUS, PET_STATUSES, PetStatus } from '../../domain/pet-status';
import { ID_SCHEMA, PET_NAME_SCHEMA, PET_STATUS_MESSAGE, PET_STATUS_SCHEMA } from './pet.response.dto';

const NAME_MESSAGE = `$property must have 1 to ${MAX_PET_NAME_LENGTH} characters and not be only white space`;

/** The domain's rule on the characters of a name, as a field rule. */
const HasNoUnsafeCharacter = () =>
  ValidateBy({
    name: 'hasNoUnsafeCharacter',
    validator: {
      validate: (value) => typeof value === 'string' && !hasUnsafeNameCharacter(value),
      defaultMessage: () => '$property must not contain control characters or bidirectional embedding, override or isolate characters',
    },
  });

/**
 * The body of `POST /v1/pets`, checked by the global ValidationPipe. class-validator
 * checks a field's rules from the bottom up (@IsDefined always first) and reports
 * only the first one broken, so the type check sits nearest the field.
 */
@ApiSchema({ name: 'NewPet', description: 'An animal to add; the service assigns its id.' })
export class CreatePetDto {
  @ApiProperty(PET_NAME_SCHEMA)
  @IsDefined({ message: '$property is required' })
  @HasNoUnsafeCharacter()
  @CodePointLength(1, MAX_PET_NAME_LENGTH, { message: NAME_MESSAGE })
  @Matches(/\S/, { message: NAME_MESSAGE })
  @IsWellFormedUnicode()
  @IsString({ message: '$property must be a string' })
  name: string;

  @ApiProperty({ ...ID_SCHEMA, description: 'Identifier of the category the animal belongs to', example: 3 })
  @IsDefined({ message: '$property is required' })
  @IsId()
  categoryId: number;

  @ApiPropertyOptional({ ...PET_STATUS_SCHEMA, default: DEFAULT_PET_STATUS })
  // Unlike @IsOptional(), which would let null through: only an absent status takes the default.
  @ValidateIf((_body, value) => value !== undefined)
  @IsIn(PET_STATUSES, { message: PET_STATUS_MESSAGE })
  status?: PetStatus;
}
