/**
 * The baseline's work (bench/baseline/work.ts) done inside a bare NestJS
 * application on @nestjs/platform-fastify, with none, one or both of the
 * card's libraries the service's hot path goes through: TypeORM's query API
 * in place of the driver, and @nestjs/throttler's guard in place of the
 * baseline's counter. No service code, no validation, no logging or metrics:
 * what is left is what the libraries themselves cost a request, the floor
 * beneath which the service cannot go while it uses them.
 *
 * Environment: as the baseline, and FLOOR_LIBRARIES, a comma list of
 * `typeorm` and `throttler` (empty: NestJS alone), checked by bench/args.ts.
 */
import 'reflect-metadata';
import { Controller, Get, Inject, Module, Post, Req, Res, type Provider } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ThrottlerGuard, ThrottlerModule, type ThrottlerStorage } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { beforeRoute, createPet, getPet, isDuplicateKey, listPets, type Once, openStore, prepareSqlite, recordOf, type Row, SQL, type Store, storedRecordOf } from '../baseline/work';

const libraries = new Set((process.env.FLOOR_LIBRARIES ?? '').split(',').filter(Boolean));
const databaseUrl = process.env.DATABASE_URL ?? '';
const STORE = Symbol('store');

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** The baseline's routes; each handler sends its own reply, so Nest only routes, guards and calls. */
@Controller('v1/pets')
class PetsController {
  private readonly list: Handler;
  private readonly get: Handler;
  private readonly create: Handler;

  constructor(@Inject(STORE) store: Store) {
    [this.list, this.get, this.create] = [listPets(store), getPet(store), createPet(store)];
  }

  @Get()
  listPets(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.list(request, reply);
  }

  @Get(':petId')
  getPet(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.get(request, reply);
  }

  @Post()
  createPet(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.create(request, reply);
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
  // On SQLite, as the baseline: a statement waits for the event loop's check phase, so a turn's statements run together.
  const query = async <T>(sql: string, parameters: unknown[]): Promise<T> => {
    if (sqlite) await nextTurn();
    return dataSource.query(sql, parameters);
  };
  // better-sqlite3 answers an INSERT with the row id itself, mysql2 with a result header.
  const insertedId = (result: unknown) => Number(sqlite ? result : (result as { insertId: number }).insertId);
  return {
    page: (status, afterId, limit) => (status ? query(SQL.pageByStatus, [status, afterId, limit]) : query(SQL.page, [afterId, limit])),
    byId: async (id) => (await query<Row[]>(SQL.byId, [id]))[0],
    insert: async (name, categoryId, status) => insertedId(await query<unknown>(SQL.insert, [name, categoryId, status])),
    insertOnce: async (name, categoryId, status, keyed) => {
      if (sqlite) await nextTurn();
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

const throttled = libraries.has('throttler');
const storeProvider: Provider = libraries.has('typeorm')
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
  controllers: [PetsController],
  providers: [storeProvider, ...(throttled ? [{ provide: APP_GUARD, useClass: ThrottlerGuard }] : [])],
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
