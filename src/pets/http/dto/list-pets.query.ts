import { Injectable, PipeTransform } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { InvalidInputError } from '../../../errors/domain-error';
import { parseDecimal, ValidatedByOwnPipe } from '../../../http/validation';
import { isPetStatus, PET_STATUSES, PetStatus } from '../../domain/pet-status';
import { PET_STATUS_SCHEMA } from './pet.response.dto';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** The query of `GET /v1/pets` as the API document describes it; parseListPetsQuery enforces it. */
@ValidatedByOwnPipe()
export class ListPetsQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: 'Maximum number of pets to return',
  })
  limit: number = DEFAULT_PAGE_SIZE;

  @ApiPropertyOptional({ ...PET_STATUS_SCHEMA, description: 'Return only pets with this status' })
  status?: PetStatus;

  @ApiPropertyOptional({
    description: 'Where the page starts: copy it from the rel="next" Link of the previous page. Opaque; a malformed cursor is a 400.',
  })
  cursor?: string;
}

const KNOWN = new Set(['limit', 'status', 'cursor']);
const LIMIT_MESSAGE = `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`;
const STATUS_MESSAGE = `status must be one of ${PET_STATUSES.join(', ')}`;

/**
 * Checked by hand rather than by class-validator: this is the busiest route,
 * and three fixed rules cost far less than the validator's per-call metadata
 * lookups. A repeated parameter arrives as an array and fails its rule; an
 * unknown one is refused, so a typo never widens a query.
 */
export function parseListPetsQuery(raw: Record<string, unknown>): ListPetsQuery {
  const problems = Object.keys(raw)
    .filter((name) => !KNOWN.has(name))
    .map((name) => `property ${name} should not exist`);
  const { limit, status, cursor } = raw;
  const size = limit === undefined ? DEFAULT_PAGE_SIZE : parseDecimal(limit);
  if (!(size >= 1 && size <= MAX_PAGE_SIZE)) problems.push(LIMIT_MESSAGE);
  if (status !== undefined && !isPetStatus(status)) problems.push(STATUS_MESSAGE);
  if (cursor !== undefined && typeof cursor !== 'string') problems.push('cursor must be given once');
  if (problems.length) throw new InvalidInputError(problems.join('; '));
  return { limit: size, status: status as PetStatus | undefined, cursor: cursor as string | undefined };
}

@Injectable()
export class ParseListPetsQueryPipe implements PipeTransform<Record<string, unknown>, ListPetsQuery> {
  transform(value: Record<string, unknown>): ListPetsQuery {
    return parseListPetsQuery(value ?? {});
  }
}
