import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional } from 'class-validator';
import { IsId, MAX_ID } from '../../../http/validation';
import { DEFAULT_PAGE_SIZE, PageCursor, PageLimit } from '../../../http/page-query';
import { Order, ORDER_STATUSES, OrderStatus } from '../../domain/order';

const ID_SCHEMA = { type: 'integer', format: 'int64', minimum: 1, maximum: MAX_ID } as const;
const ORDER_STATUS_SCHEMA = { enum: ORDER_STATUSES, enumName: 'OrderStatus', description: 'Where the order stands' } as const;
const TIME_SCHEMA = { type: 'string', format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' } as const;

/** The body of `POST /v1/store/orders`, checked by the global ValidationPipe; unknown fields are refused. */
@ApiSchema({ name: 'NewOrder', description: 'The pet to buy.' })
export class PlaceOrderDto {
  @ApiProperty({ ...ID_SCHEMA, description: 'The id of an available pet', example: 1 })
  @IsDefined({ message: '$property is required' })
  @IsId()
  petId: number;
}

/** The query of `GET /v1/store/orders`; an unknown parameter is refused. */
export class ListOrdersQueryDto {
  @PageLimit('orders')
  limit: number = DEFAULT_PAGE_SIZE;

  @ApiPropertyOptional({ ...ORDER_STATUS_SCHEMA, description: 'Return only orders with this status' })
  @IsOptional()
  @IsIn(ORDER_STATUSES, { message: `$property must be one of ${ORDER_STATUSES.join(', ')}` })
  status?: OrderStatus;

  @PageCursor()
  cursor?: string;
}

/** An order as the API returns it (the Order schema of the API document). */
@ApiSchema({ name: 'Order', description: "An account's order of one pet." })
export class OrderResponseDto {
  @ApiProperty({ ...ID_SCHEMA, description: 'Identifier assigned by the service', example: 1 })
  id: number;

  @ApiProperty({ ...ID_SCHEMA, description: 'The pet ordered', example: 1 })
  petId: number;

  @ApiProperty({ ...ORDER_STATUS_SCHEMA, example: 'placed' })
  status: OrderStatus;

  @ApiProperty({ ...TIME_SCHEMA, description: 'When the order was placed (RFC 3339, UTC)', example: '2026-12-07T12:00:00.000Z' })
  placedAt: string;

  @ApiPropertyOptional({ ...TIME_SCHEMA, description: 'When the order was delivered; present once it is', example: '2026-12-07T12:05:00.000Z' })
  deliveredAt?: string;

  @ApiPropertyOptional({ ...TIME_SCHEMA, description: 'When the order was cancelled, by its client or at the end of its hold; present once it is', example: '2026-12-07T12:30:00.000Z' })
  cancelledAt?: string;
}

const time = (ms: number): string => new Date(ms).toISOString();

/** The wire form of an order: its account and hold stay inside. */
export function toOrderResponse(order: Order): OrderResponseDto {
  return {
    id: order.id,
    petId: order.petId,
    status: order.status,
    placedAt: time(order.placedAt),
    ...(order.deliveredAt === undefined ? {} : { deliveredAt: time(order.deliveredAt) }),
    ...(order.cancelledAt === undefined ? {} : { cancelledAt: time(order.cancelledAt) }),
  };
}
