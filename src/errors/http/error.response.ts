import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ERROR_CODES, ErrorBody } from './error-statuses';

/** The Error schema of the API document: the one body of every error response. */
@ApiSchema({ name: 'Error', description: 'The body of every error response: exactly these three fields.' })
export class ErrorResponse implements ErrorBody {
  @ApiProperty({ enum: ERROR_CODES.map(({ code }) => code), enumName: 'ErrorCode', description: 'Machine-readable error code' })
  code: string;

  @ApiProperty({ description: 'Human-readable description' })
  message: string;

  @ApiProperty({ type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status code of the response', example: 400 })
  status: number;
}
