/**
 * The baseline's work (bench/baseline/work.ts) done inside a bare NestJS
 * application on @nestjs/platform-fastify, with any of the card's parts the
 * service's hot path goes through: TypeORM's query API in place of the
 * driver, @nestjs/throttler's guard in place of the baseline's counter, a
 * global ValidationPipe checking the create's body and the list's query
 * against class-validator DTOs in place of the baseline's checks by hand, and
 * Nest interceptors around the routes, the GETs' answers tagged by one in
 * place of handlers that send their own. No service code, no logging or
 * metrics: what is left is what the libraries themselves cost a request, the
 * floor beneath which the service cannot go while it uses them.
 *
 * Environment: as the baseline, and FLOOR_PARTS, a comma list of `typeorm`,
 * `throttler`, `validation` and `interceptors` (empty: NestJS alone), as
 * bench/args.ts expands `--floor`; any other name stops the start.
 */
import 'reflect-metadata';
import {
  BadRequestException,
  Body,
  type CallHandler,
  Controller,
  type ExecutionContext,
  Get,
  HttpException,
  Inject,
  Injectable,
  Module,
  type NestInterceptor,
  Post,
  type Provider,
  Query,
  Req,
  Res,
  type Type,
  UseInterceptors,
  ValidationPipe,
} from '@nestjs/common';
import { APP_GUARD, APP_PIPE, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ThrottlerGuard, ThrottlerModule, type ThrottlerStorage } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { map, type Observable } from 'rxjs';
import { DataSource } from 'typeorm';
import {
  answerStored,
  beforeRoute,
  benchAccountOf,
  deliverOrder,
  orderWork,
  placeOrder,
  checkNewPet,
  createPet,
  findPage,
  findPet,
  isDuplicateKey,
  type Once,
  openStore,
  prepareSqlite,
  readPageQuery,
  recordOf,
  Refusal,
  type Row,
  sendTagged,
  SQL,
  type Store,
  storedRecordOf,
  storeNewPet,
  storePet,
  tagJson,
} from '../baseline/work';
import { CreatePetDto } from './create-pet.dto';
import { FLOOR_PARTS } from './parts';
import { ListPetsQueryDto } from './list-pets.query.dto';

const parts = new Set((process.env.FLOOR_PARTS ?? '').split(',').filter(Boolean));
// A misspelt or shorthand part would otherwise measure a floor without it, so it stops the start instead.
const unknownParts = [...parts].filter((part) => !(FLOOR_PARTS as readonly string[]).includes(part));
if (unknownParts.length > 0) {
  console.error(`FLOOR_PARTS names ${unknownParts.join(', ')}; the floor's parts are ${FLOOR_PARTS.join(', ')} (the bench's 'card' and 'nest' are all and none)`);
  process.exit(1);
}
const databaseUrl = process.env.DATABASE_URL ?? '';
const throttled = parts.has('throttler');
const validated = parts.has('validation');
const intercepted = parts.has('interceptors');
const STORE = Symbol('store');

/**
 * A GET's answer, as the service's @ConditionalGet() makes it: the handler's
 * result serialized once and tagged, then sent by Nest as it is, or a 304
 * without a body when If-None-Match names the tag.
 */
@Injectable()
class TaggedAnswerInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<string | undefined> {
    const http = context.switchToHttp();
    const [request, reply] = [http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>()];
    return next.handle().pipe(map((body: unknown) => tagJson(request, reply, body)));
  }
}

/**
 * The wrapper every create has in the service, whose @Idempotent()
 * interceptor lets a request without an Idempotency-Key straight on. The
 * floor's keyed create keeps the key's record in its handler's transaction,
 * so a keyed request goes on too.
 */
@Injectable()
class CreateInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle();
  }
}

/** A route's interceptor when the floor runs with `interceptors`; without, the route has none. */
const InterceptedBy = (interceptor: Type<NestInterceptor>): MethodDecorator => (intercepted ? UseInterceptors(interceptor) : () => undefined);

/** A GET's result for its interceptor to send; a refusal is thrown as an HttpException whose response is the Error body. */
function throwIfRefused<T>(result: T | Refusal): T {
  if (result instanceof Refusal) throw new HttpException({ code: result.code, message: result.message, status: result.status }, result.status);
  return result;
}

/**
 * The baseline's routes. Without `interceptors` each handler sends its own
 * reply, so Nest only routes, guards, validates and calls; with them, the
 * GETs return their result for Nest to send through their interceptor.
 */
@Controller('v1/pets')
class PetsController {
  private readonly fetchPage: ReturnType<typeof findPage>;
  private readonly fetchPet: ReturnType<typeof findPet>;
  private readonly create: (request: FastifyRequest, reply: FastifyReply, pet: CreatePetDto) => Promise<FastifyReply>;
  private readonly storeChecked: ReturnType<typeof storeNewPet>;

  constructor(@Inject(STORE) store: Store) {
    [this.fetchPage, this.fetchPet] = [findPage(store), findPet(store)];
    // A body the pipe has checked goes straight to the insert; without the pipe the baseline checks it by hand.
    this.create = validated ? storePet(store) : createPet(store);
    this.storeChecked = storeNewPet(store);
  }

  /** Without the pipe `query` is Fastify's own, checked here by hand as the baseline checks it. */
  @Get()
  @InterceptedBy(TaggedAnswerInterceptor)
  async listPets(@Query() query: ListPetsQueryDto, @Req() request: FastifyRequest, @Res({ passthrough: intercepted }) reply: FastifyReply) {
    const checked = validated ? query : readPageQuery(query);
    const pets = checked instanceof Refusal ? checked : await this.fetchPage(request, reply, checked);
    return intercepted ? throwIfRefused(pets) : sendTagged(request, reply, pets);
  }

  @Get(':petId')
  @InterceptedBy(TaggedAnswerInterceptor)
  async getPet(@Req() request: FastifyRequest, @Res({ passthrough: intercepted }) reply: FastifyReply) {
    const pet = await this.fetchPet(request, reply);
    return intercepted ? throwIfRefused(pet) : sendTagged(request, reply, pet);
  }

  /** With `interceptors`, as the service's: the pet returned for Nest to send, through the route's interceptor. */
  @Post()
  @InterceptedBy(CreateInterceptor)
  async createPet(@Body() body: CreatePetDto, @Req() request: FastifyRequest, @Res({ passthrough: intercepted }) reply: FastifyReply) {
    if (!intercepted) return this.create(request, reply, body);
    const pet = validated ? body : checkNewPet(request.body);
    const stored = typeof pet === 'string' ? new Refusal('validation_failed', pet, 400) : await this.storeChecked(request, pet);
    return answerStored(request, reply, throwIfRefused(stored)).body;
  }
}

/** The baseline's order routes as they are: handlers that check by hand and send their own reply, whatever the parts. */
@Controller('v1/store/orders')
class OrdersController {
  private readonly place: ReturnType<typeof placeOrder>;
  private readonly deliver: ReturnType<typeof deliverOrder>;

  constructor(@Inject(STORE) store: Store) {
    const accountOf = benchAccountOf(async () => (await store.rows(SQL.benchAccount)) as Array<{ id: number }>);
    [this.place, this.deliver] = [placeOrder(store, accountOf), deliverOrder(store, accountOf)];
  }

  @Post()
  placeOrder(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.place(request, reply);
  }

  @Post(':orderId/deliver')
  deliverOrder(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.deliver(request, reply);
  }
}

/** The baseline's SQL sent through TypeORM's public `DataSource.query`, as a repository's raw query would be. */
async function typeOrmStore(): Promise<Store> {
  const sqlite = databaseUrl.startsWith('sqlite:');
  const dataSource = await new DataSource(
    sqlite
      ? {
          type: 'better-sqlite3',
          database: databaseUrl.slice('sqlite:'.length),
          prepareDatabase: prepareSqlite,
        }
      : { type: 'mysql', url: databaseUrl.replace(/^mariadb:/, 'mysql:'), poolSize: 10, charset: 'utf8mb4', timezone: 'Z', trace: false },
  ).initialize();
  const query = <T>(sql: string, parameters: unknown[]): Promise<T> => dataSource.query(sql, parameters);
  // better-sqlite3 answers an INSERT with the row id itself, mysql2 with a result header.
  const insertedId = (result: unknown) => Number(sqlite ? result : (result as { insertId: number }).insertId);
  return {
    ...orderWork((work) =>
      dataSource.transaction(async (manager) => {
        const runner = manager.queryRunner!;
        return work({
          rows: (sql, values) => runner.query(sql, values),
          change: async (sql, values) => {
            const { affected, raw } = await runner.query(sql, values, true);
            return { changed: affected ?? 0, id: insertedId(raw) };
          },
        });
      }),
    ),
    page: (status, afterId, limit) => (status ? query(SQL.pageByStatus, [status, afterId, limit]) : query(SQL.page, [afterId, limit])),
    byId: async (id) => (await query<Row[]>(SQL.byId, [id]))[0],
    rows: (sql, values = []) => query(sql, values),
    insert: async (name, categoryId, status) => insertedId(await query<unknown>(SQL.insert, [name, categoryId, status])),
    insertOnce: async (name, categoryId, status, keyed) => {
      try {
        return await dataSource.transaction(async (manager) => {
          const id = insertedId(await manager.query(SQL.insert, [name, categoryId, status]));
          await manager.query(SQL.record, recordOf(id, name, categoryId, status, keyed));
          return { id };
        });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        return ((await dataSource.query(SQL.storedRecord, storedRecordOf(keyed))) as Once[])[0];
      }
    },
  };
}

/**
 * One fixed window per key and throttler, through the library's storage
 * interface: its default storage keeps a timer per hit, which at the bench's
 * limits grows without bound.
 */
class WindowStorage implements ThrottlerStorage {
  private readonly windows = new Map<string, { start: number; hits: number }>();

  async increment(key: string, ttl: number) {
    const now = Date.now();
    const start = now - (now % ttl);
    let window = this.windows.get(key);
    if (!window || window.start !== start) this.windows.set(key, (window = { start, hits: 0 }));
    window.hits += 1;
    return { totalHits: window.hits, timeToExpire: Math.ceil((start + ttl - now) / 1000), isBlocked: false, timeToBlockExpire: 0 };
  }
}

/**
 * The documented global pipe: a create's body becomes a CreatePetDto and a
 * list's query a ListPetsQueryDto, or is refused, unknown fields included,
 * with the Error body the baseline sends.
 */
const createValidationPipe = () =>
  new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    // One message per field, the first rule it breaks, as the service's pipe gives it.
    stopAtFirstError: true,
    exceptionFactory: (errors) =>
      new BadRequestException({
        code: 'validation_failed',
        message: errors.flatMap((error) => Object.values(error.constraints ?? {})).join('; '),
        status: 400,
      }),
  });

const storeProvider: Provider = parts.has('typeorm')
  ? { provide: STORE, useFactory: typeOrmStore }
  : { provide: STORE, useValue: openStore(databaseUrl) };

@Module({
  imports: throttled
    ? [
        ThrottlerModule.forRoot({
          // The bench key's plan: far above the load.
          throttlers: [
            { name: 'minute', ttl: 60_000, limit: 100_000_000 },
            { name: 'day', ttl: 86_400_000, limit: 1_000_000_000 },
          ],
          storage: new WindowStorage(),
        }),
      ]
    : [],
  controllers: [PetsController, OrdersController],
  providers: [
    storeProvider,
    ...(throttled ? [{ provide: APP_GUARD, useClass: ThrottlerGuard }] : []),
    ...(validated ? [{ provide: APP_PIPE, useFactory: createValidationPipe }] : []),
  ],
})
class FloorModule {}

async function main(): Promise<void> {
  const adapter = new FastifyAdapter({ bodyLimit: 16_384, genReqId: () => randomUUID() });
  adapter.getInstance().addHook('onRequest', beforeRoute({ count: !throttled }));
  adapter.getInstance().get('/healthz', async () => ({ status: 'ok' }));
  const app = await NestFactory.create<NestFastifyApplication>(FloorModule, adapter, { logger: ['error'] });
  await app.listen(Number(process.env.PORT ?? 3201), process.env.HOST ?? '127.0.0.1');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
