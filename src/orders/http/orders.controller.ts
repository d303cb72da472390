import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { RequireScope } from '../../auth/http/require-scope.decorator';
import { AppConfig } from '../../config/app-config';
import { ApiStandardResponses } from '../../docs/api-standard-responses';
import { INVALID_TRANSITION, NOT_FOUND } from '../../errors/domain/error-code';
import { ownUrl } from '../../http/own-url';
import type { KeyCaller } from '../../callers/caller';
import { ConditionalGet } from '../../http/conditional-get';
import { CurrentCaller } from '../../http/request-context';
import { MAX_ID, ParseIdPipe } from '../../http/validation';
import { Idempotent } from '../../idempotency/http/idempotent.decorator';
import { OrderingAccount, OrdersService } from '../application/orders.service';
import type { OrderAction } from '../domain/order';
import { PET_NOT_AVAILABLE, TOO_MANY_OPEN_ORDERS } from '../domain/order.errors';
import { ListOrdersQueryDto, OrderResponseDto, PlaceOrderDto, toOrderResponse } from './dto/order.dto';
import { orderCursor } from './order-cursor';
import { ORDERS_READ, ORDERS_WRITE } from './order-scopes';

const ORDER_ID = { name: 'orderId', schema: { type: 'integer', format: 'int64', minimum: 1, maximum: MAX_ID }, description: "The id of one of the account's orders" } as const;
const NO_SUCH_ORDER = { code: NOT_FOUND, when: "the account has no order with that id (another account's order included)" } as const;
const SETTLED = { code: INVALID_TRANSITION, when: 'the order is delivered or cancelled already, the other way' } as const;

const accountOf = (caller: KeyCaller): OrderingAccount => ({ accountId: caller.accountId, plan: caller.plan });

@ApiTags('store')
@ApiBearerAuth()
@Controller({ path: 'store/orders', version: '1' })
export class OrdersController {
  constructor(
    private readonly orders: OrdersService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @RequireScope(ORDERS_READ)
  @ConditionalGet()
  @ApiOperation({ operationId: 'listOrders', summary: "List the account's orders", description: "A page of the account's orders ordered by id." })
  @ApiStandardResponses({
    success: {
      status: 200,
      description: 'A page of orders',
      type: [OrderResponseDto],
      headers: {
        Link: {
          description: 'RFC 8288: `<…/v1/store/orders?limit=…&status=…&cursor=…>; rel="next"` while more orders follow; absent on the last page',
          schema: { type: 'string', pattern: '^<[^>]+>; rel="next"$' },
        },
      },
    },
  })
  async listOrders(@Query() query: ListOrdersQueryDto, @CurrentCaller() caller: KeyCaller, @Res({ passthrough: true }) reply: FastifyReply): Promise<OrderResponseDto[]> {
    const afterId = query.cursor === undefined ? undefined : orderCursor.decode(query.cursor);
    const page = await this.orders.list(accountOf(caller), { limit: query.limit, status: query.status, afterId });
    if (page.nextAfterId !== undefined) {
      const next = new URLSearchParams({ limit: String(query.limit) });
      if (query.status) next.set('status', query.status);
      next.set('cursor', orderCursor.encode(page.nextAfterId));
      reply.header('Link', `<${ownUrl(this.config, `/v1/store/orders?${next}`)}>; rel="next"`);
    }
    return page.orders.map(toOrderResponse);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'placeOrder',
    summary: 'Order a pet',
    description:
      'The pet must be `available`; it becomes `pending` with the order, for `ORDER_HOLD_SECONDS` (then, not delivered, the order is cancelled). ' +
      'A pet has at most one placed or delivered order, and an account at most its plan\'s number of placed orders. ' +
      'With an `Idempotency-Key`, a retry with the same key and body gets the first answer again instead of a second order.',
  })
  @RequireScope(ORDERS_WRITE)
  @Idempotent()
  @ApiStandardResponses({
    success: {
      status: 201,
      description: 'The order, placed',
      type: OrderResponseDto,
      headers: {
        // A replay carries it too: the idempotency record keeps the first answer's Location.
        Location: { required: true, description: "The order's address, `…/v1/store/orders/{id}`, on a replay too", schema: { type: 'string', format: 'uri' } },
      },
    },
    errors: [
      { code: NOT_FOUND, when: 'no pet with that id' },
      { code: PET_NOT_AVAILABLE, when: 'the pet is pending or sold, or another order took it first' },
      { code: TOO_MANY_OPEN_ORDERS, when: "the account holds as many placed orders as its plan allows" },
    ],
  })
  async placeOrder(@Body() body: PlaceOrderDto, @CurrentCaller() caller: KeyCaller, @Res({ passthrough: true }) reply: FastifyReply): Promise<OrderResponseDto> {
    const order = await this.orders.place(accountOf(caller), body.petId);
    reply.header('Location', ownUrl(this.config, `/v1/store/orders/${order.id}`));
    return toOrderResponse(order);
  }

  @Get(':orderId')
  @RequireScope(ORDERS_READ)
  @ConditionalGet()
  @ApiOperation({ operationId: 'getOrder', summary: 'Get an order', description: "One of the account's orders; another account's is not found." })
  @ApiParam(ORDER_ID)
  @ApiStandardResponses({ success: { status: 200, description: 'The order', type: OrderResponseDto }, errors: [NO_SUCH_ORDER] })
  async getOrder(@Param('orderId', ParseIdPipe) orderId: number, @CurrentCaller() caller: KeyCaller): Promise<OrderResponseDto> {
    return toOrderResponse(await this.orders.get(accountOf(caller), orderId));
  }

  @Post(':orderId/deliver')
  @HttpCode(200)
  @RequireScope(ORDERS_WRITE)
  @ApiOperation({ operationId: 'deliverOrder', summary: 'Deliver an order', description: 'The order becomes `delivered` and its pet `sold`. Sent again: the order, unchanged.' })
  @ApiParam(ORDER_ID)
  @ApiStandardResponses({ success: { status: 200, description: 'The order, delivered', type: OrderResponseDto }, errors: [NO_SUCH_ORDER, SETTLED] })
  deliverOrder(@Param('orderId', ParseIdPipe) orderId: number, @CurrentCaller() caller: KeyCaller): Promise<OrderResponseDto> {
    return this.act(caller, orderId, 'deliver');
  }

  @Post(':orderId/cancel')
  @HttpCode(200)
  @RequireScope(ORDERS_WRITE)
  @ApiOperation({ operationId: 'cancelOrder', summary: 'Cancel an order', description: 'The order becomes `cancelled` and its pet `available` again. Sent again: the order, unchanged.' })
  @ApiParam(ORDER_ID)
  @ApiStandardResponses({ success: { status: 200, description: 'The order, cancelled', type: OrderResponseDto }, errors: [NO_SUCH_ORDER, SETTLED] })
  cancelOrder(@Param('orderId', ParseIdPipe) orderId: number, @CurrentCaller() caller: KeyCaller): Promise<OrderResponseDto> {
    return this.act(caller, orderId, 'cancel');
  }

  private async act(caller: KeyCaller, orderId: number, action: OrderAction): Promise<OrderResponseDto> {
    return toOrderResponse(await this.orders.act(accountOf(caller), orderId, action));
  }
}
