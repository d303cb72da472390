import { applyDecorators } from '@nestjs/common';
import { IsString, Matches } from 'class-validator';
import { CodePointLength, HasNoControlCharacters, IsWellFormedUnicode } from '../../../http/validation';
import { MAX_PET_NAME_LENGTH } from '../../domain/pet';

const NAME_MESSAGE = `$property must have 1 to ${MAX_PET_NAME_LENGTH} characters and not be only white space`;

/**
 * The rules of a pet's name, for every DTO that takes one (create, change): a
 * string of 1 to 255 code points, not only white space, that UTF-8 holds
 * exactly, without control or bidirectional formatting characters. Whether the
 * field is required is the DTO's to say (`@IsDefined()` or `@ValidateIf()`).
 * class-validator reports only the first rule broken, in the order listed here.
 */
export const IsPetName = (): PropertyDecorator =>
  applyDecorators(
    IsString({ message: '$property must be a string' }),
    IsWellFormedUnicode(),
    HasNoControlCharacters(),
    Matches(/\S/, { message: NAME_MESSAGE }),
    CodePointLength(1, MAX_PET_NAME_LENGTH, { message: NAME_MESSAGE }),
  );
