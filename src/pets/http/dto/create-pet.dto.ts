import { Injectable, PipeTransform } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { InvalidInputError } from '../../../errors/domain-error';
import { isPositiveSafeInteger, MAX_ID, ValidatedByOwnPipe } from '../../../http/validation';
import { MAX_PET_NAME_LENGTH } from '../../domain/pet';
import { DEFAULT_PET_STATUS, isPetStatus, PET_STATUSES, PetStatus } from '../../domain/pet-status';
import { ID_SCHEMA, PET_NAME_SCHEMA, PET_STATUS_SCHEMA } from './pet.response.dto';

/** The body of `POST /v1/pets` as the API document describes it; parseCreatePetBody enforces it. */
@ValidatedByOwnPipe()
@ApiSchema({ name: 'NewPet', description: 'An animal to add; the service assigns its id.' })
export class CreatePetDto {
  @ApiProperty(PET_NAME_SCHEMA)
  name: string;

  @ApiProperty({ ...ID_SCHEMA, description: 'Identifier of the category the animal belongs to', example: 3 })
  categoryId: number;

  @ApiPropertyOptional({ ...PET_STATUS_SCHEMA, default: DEFAULT_PET_STATUS })
  status?: PetStatus;
}

const KNOWN = new Set(['name', 'categoryId', 'status']);
const NAME_MESSAGE = `name must have 1 to ${MAX_PET_NAME_LENGTH} characters and not be only white space`;
const CATEGORY_MESSAGE = `categoryId must be an integer from 1 to ${MAX_ID}`;
const STATUS_MESSAGE = `status must be one of ${PET_STATUSES.join(', ')}`;

/** Length in characters (code points), as MySQL's utf8mb4 VARCHAR counts them. */
function isPetName(value: string): boolean {
  if (!/\S/.test(value)) return false;
  // Most names are short: only a string longer than the limit in UTF-16 units can be too long in code points.
  return value.length <= MAX_PET_NAME_LENGTH || [...value].length <= MAX_PET_NAME_LENGTH;
}

/**
 * Checked by hand rather than by class-validator and class-transformer, which
 * on this route cost more than the insert itself. Every problem is reported,
 * one per field, unknown fields first; `null` counts as missing for the
 * required fields and as a wrong value for `status`. The body is already known
 * to be a JSON object (the global validation pipe runs first).
 */
export function parseCreatePetBody(body: Record<string, unknown>): CreatePetDto {
  const problems: string[] = [];
  for (const field in body) {
    if (!KNOWN.has(field)) problems.push(`property ${field} should not exist`);
  }
  const { name, categoryId, status } = body;
  if (name === undefined || name === null) problems.push('name is required');
  else if (typeof name !== 'string') problems.push('name must be a string');
  else if (!isPetName(name)) problems.push(NAME_MESSAGE);
  if (categoryId === undefined || categoryId === null) problems.push('categoryId is required');
  else if (!isPositiveSafeInteger(categoryId)) problems.push(CATEGORY_MESSAGE);
  if (status !== undefined && !isPetStatus(status)) problems.push(STATUS_MESSAGE);
  if (problems.length) throw new InvalidInputError(problems.join('; '));
  return { name: name as string, categoryId: categoryId as number, status: status as PetStatus | undefined };
}

@Injectable()
export class ParseCreatePetBodyPipe implements PipeTransform<Record<string, unknown>, CreatePetDto> {
  transform(body: Record<string, unknown>): CreatePetDto {
    return parseCreatePetBody(body);
  }
}
