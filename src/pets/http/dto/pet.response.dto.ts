import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CONTROL_OR_BIDI_RANGES, MAX_ID } from '../../../http/validation';
import { MAX_PET_NAME_LENGTH, Pet } from '../../domain/pet';
import { DEFAULT_PET_STATUS, PET_STATUSES, PetStatus } from '../../domain/pet-status';

/** How ids and categoryId appear in the API document: JSON integers from 1 to 2^53 - 1. */
export const ID_SCHEMA = { type: 'integer', format: 'int64', minimum: 1, maximum: MAX_ID } as const;

/** A pet's name as the API document shows it, in the request and in the response alike. */
export const PET_NAME_SCHEMA = {
  type: String,
  minLength: 1,
  maxLength: MAX_PET_NAME_LENGTH,
  // No control or bidirectional formatting character anywhere, and at least one character that is not white space.
  pattern: `^[^${CONTROL_OR_BIDI_RANGES}]*[^\\s${CONTROL_OR_BIDI_RANGES}][^${CONTROL_OR_BIDI_RANGES}]*$`,
  description:
    `The animal's name: 1 to ${MAX_PET_NAME_LENGTH} characters (code points), not only white space, without control characters (Unicode Cc) ` +
    'or bidirectional embeddings, overrides and isolates (U+202A to U+202E, U+2066 to U+2069); stored and returned exactly as sent',
  example: 'Rex',
} as const;

export const PET_STATUS_SCHEMA = { enum: PET_STATUSES, enumName: 'PetStatus', description: 'Availability status' } as const;

/** What a status that is not one of the enumeration is told, in a body or a query. */
export const PET_STATUS_MESSAGE = `$property must be one of ${PET_STATUSES.join(', ')}`;

/**
 * A pet as the API returns it (the Pet schema of the API document). Routes
 * return domain Pets, which carry exactly these fields.
 */
@ApiSchema({ name: 'Pet', description: 'An animal in the catalogue.' })
export class PetResponseDto implements Pet {
  @ApiProperty({ ...ID_SCHEMA, description: 'Identifier assigned by the service', example: 1 })
  id: number;

  @ApiProperty(PET_NAME_SCHEMA)
  name: string;

  @ApiProperty({ ...ID_SCHEMA, description: 'Identifier of the category the animal belongs to', example: 3 })
  categoryId: number;

  @ApiProperty({ ...PET_STATUS_SCHEMA, example: DEFAULT_PET_STATUS })
  status: PetStatus;
}
