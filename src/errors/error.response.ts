import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { declaredErrorCodes, ErrorBody } from './error-code';

/** The Error schema of the API document: the one body of every error response. */
@ApiSchema({ name: 'Error', description: 'The body of every error response: exactly these three fields.' })
export class ErrorResponse implements ErrorBody {
  // The enum grows as modules declare their codes; the API document is built once all of them are loaded (see completeErrorCodes).
  @ApiProperty({ enum: () => declaredErrorCodes().map(({ code }) => code), enumName: 'ErrorCode', description: 'Machine-readable error code' })
  code: string;

  @ApiProperty({ description: 'Human-readable description' })
  message: string;

  @ApiProperty({ type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status code of the response', example: 400 })
  status: number;
}
