import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { parseDecimal } from './validation';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

const LIMIT_MESSAGE = `$property must be an integer from 1 to ${MAX_PAGE_SIZE}`;

/** A list's `limit` query parameter: 1 to 100 items a page, 20 when absent. */
export const PageLimit = (items: string): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: `Maximum number of ${items} to return` }),
    // Plain decimal digits only: anything else becomes NaN, which @IsInt refuses.
    Transform(({ value }) => parseDecimal(value)),
    IsInt({ message: LIMIT_MESSAGE }),
    Min(1, { message: LIMIT_MESSAGE }),
    Max(MAX_PAGE_SIZE, { message: LIMIT_MESSAGE }),
  );

/** A list's `cursor` query parameter, copied from the previous page's `Link`. */
export const PageCursor = (): PropertyDecorator =>
  applyDecorators(
    ApiPropertyOptional({
      description: 'Where the page starts: copy it from the rel="next" Link of the previous page. Opaque; a malformed cursor is a 400.',
    }),
    IsOptional(),
    IsString({ message: '$property must be given once' }),
  );
