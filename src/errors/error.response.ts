import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorBody, ErrorCode } from './error-code';

/** The Error schema of the API document: the one body of every error response. */
@ApiSchema({ name: 'Error', description: 'The body of every error response: exactly these three fields.' })
export class ErrorResponse implements ErrorBody {
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), enumName: 'ErrorCode', description: 'Machine-readable error code' })
  code: ErrorCode;

  @ApiProperty({ description: 'Human-readable description' })
  message: string;

  @ApiProperty({ type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status code of the response', example: 400 })
  status: number;
}
