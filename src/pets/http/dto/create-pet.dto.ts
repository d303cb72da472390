import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsDefined, IsIn, ValidateIf } from 'class-validator';
import { IsId } from '../../../http/validation';
import { DEFAULT_PET_STATUS, PET_STATUSES, PetStatus } from '../../domain/pet-status';
import { IsPetName } from './pet-name.decorator';
import { ID_SCHEMA, PET_NAME_SCHEMA, PET_STATUS_MESSAGE, PET_STATUS_SCHEMA } from './pet.response.dto';

/**
 * The body of `POST /v1/pets`, checked by the global ValidationPipe, which
 * reports the first rule each field breaks (@IsDefined always first).
 */
@ApiSchema({ name: 'NewPet', description: 'An animal to add; the service assigns its id.' })
export class CreatePetDto {
  @ApiProperty(PET_NAME_SCHEMA)
  @IsDefined({ message: '$property is required' })
  @IsPetName()
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
