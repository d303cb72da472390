import { IsIn, IsInt, IsString, Matches, Max, Min, registerDecorator } from 'class-validator';
import { PET_STATUSES } from '../baseline/work';

/** A string of `min` to `max` code points, as MySQL's utf8mb4 VARCHAR counts them; @Length counts UTF-16 units less variation selectors. */
function CodePointLength(min: number, max: number): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'codePointLength',
      target: target.constructor,
      propertyName: String(propertyName),
      constraints: [min, max],
      validator: {
        validate: (value: unknown) => {
          const length = typeof value === 'string' ? [...value].length : -1;
          return length >= min && length <= max;
        },
        defaultMessage: () => `$property must have ${min} to ${max} characters`,
      },
    });
}

/** The floor's body of `POST /v1/pets`: the service's rules for it, in class-validator's own decorators where they have them. */
export class CreatePetDto {
  @IsString()
  @CodePointLength(1, 255)
  @Matches(/\S/, { message: '$property must not be only white space' })
  name: string;

  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  categoryId: number;

  // A default rather than @IsOptional(), which would let null through: only an absent status is the default.
  @IsIn(PET_STATUSES)
  status: string = 'available';
}
