/**
 * The work the baseline does per request, as plain functions over Fastify's
 * request and reply, so that bench/floor can do the very same work inside
 * NestJS. It imports no service code.
 */
import Database from 'better-sqlite3';
import { createHash, hash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createPool } from 'mysql2';

export type Row = { id: number; name: string; categoryId: number; status: string };

/** A create's Idempotency-Key and the digest of its body. */
export interface Keyed {
  readonly key: string;
  readonly fingerprint: string;
}

/** What a keyed insert did: stored a pet, or found the record a create with the same key left. */
export type Once = { readonly id: number } | { readonly fingerprint: string; readonly body: string };

/** An order as the store keeps it, times in epoch milliseconds. */
export type OrderRow = { id: number; accountId: number; petId: number; status: string; placedAt: number; deliveredAt: number | null };

/** What a placement met: the order placed, or why not. */
export type Placed = { readonly id: number } | 'no_pet' | 'not_available' | 'too_many';

export interface Store {
  page(status: string | undefined, afterId: number, limit: number): Promise<Row[]>;
  byId(id: number): Promise<Row | undefined>;
  insert(name: string, categoryId: number, status: string): Promise<number>;
  /** The insert and the key's record, the answer its retries get, in one transaction; or the record stored before. */
  insertOnce(name: string, categoryId: number, status: string, keyed: Keyed): Promise<Once>;
  /** One read, for what a route needs of the store besides its own statements (the bench key's account). */
  rows(sql: string, values?: unknown[]): Promise<unknown[]>;
  /** The pet held, the account's place taken and the order inserted, in one transaction. */
  placeOrder(accountId: number, petId: number, cap: number, now: number): Promise<Placed>;
  /** The placed order delivered, its pet sold and the account's place given back, in one transaction; the order as it stands after, if it is the account's. */
  deliverOrder(accountId: number, orderId: number, now: number): Promise<OrderRow | undefined>;
}

const COLUMNS = 'id, name, category_id AS categoryId, status';
/** The statements both the baseline and the floor send. */
export const SQL = {
  page: `SELECT ${COLUMNS} FROM pets WHERE id > ? ORDER BY id LIMIT ?`,
  pageByStatus: `SELECT ${COLUMNS} FROM pets WHERE status = ? AND id > ? ORDER BY id LIMIT ?`,
  byId: `SELECT ${COLUMNS} FROM pets WHERE id = ?`,
  insert: 'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)',
  record: 'INSERT INTO idempotency_records (api_key_id, idempotency_key, fingerprint, status_code, response_body, expires_at) VALUES (?, ?, ?, 201, ?, ?)',
  storedRecord: 'SELECT fingerprint, response_body AS body FROM idempotency_records WHERE api_key_id = ? AND idempotency_key = ?',
  // The service's statements for an order (src/orders/infrastructure/typeorm-order.repository.ts).
  holdPet: "UPDATE pets SET status = 'pending' WHERE id = ? AND status = 'available'",
  petStatus: 'SELECT status FROM pets WHERE id = ?',
  takePlace: 'UPDATE accounts SET placed_orders = placed_orders + 1 WHERE id = ? AND placed_orders < ?',
  freePlace: 'UPDATE accounts SET placed_orders = placed_orders - 1 WHERE id = ? AND placed_orders > 0',
  insertOrder: "INSERT INTO orders (account_id, pet_id, status, active_pet_id, placed_at, hold_until) VALUES (?, ?, 'placed', ?, ?, ?)",
  ownOrder: 'SELECT id, account_id AS accountId, pet_id AS petId, status, placed_at AS placedAt, delivered_at AS deliveredAt FROM orders WHERE id = ? AND account_id = ?',
  deliver: "UPDATE orders SET status = 'delivered', delivered_at = ? WHERE id = ? AND status = 'placed'",
  sellPet: "UPDATE pets SET status = 'sold' WHERE id = ?",
  benchAccount: 'SELECT MIN(id) AS id FROM accounts',
};

/** How long an order holds its pet: the service's default. */
const HOLD_MS = 1_800_000;

/**
 * The order statements in the service's order, on a connection that runs one
 * statement and answers its rows (a SELECT) or the rows it changed and the id
 * it inserted (anything else); the caller wraps them in one transaction.
 */
interface Run {
  rows<T>(sql: string, values: unknown[]): Promise<T[]>;
  change(sql: string, values: unknown[]): Promise<{ changed: number; id: number }>;
}

async function placeWith(run: Run, accountId: number, petId: number, cap: number, now: number): Promise<Placed> {
  if ((await run.change(SQL.holdPet, [petId])).changed === 0) return (await run.rows(SQL.petStatus, [petId])).length ? 'not_available' : 'no_pet';
  if ((await run.change(SQL.takePlace, [accountId, cap])).changed === 0) return 'too_many';
  return { id: (await run.change(SQL.insertOrder, [accountId, petId, petId, now, now + HOLD_MS])).id };
}

async function deliverWith(run: Run, accountId: number, orderId: number, now: number): Promise<OrderRow | undefined> {
  const [order] = await run.rows<OrderRow>(SQL.ownOrder, [orderId, accountId]);
  if (!order || order.status !== 'placed') return order;
  if ((await run.change(SQL.deliver, [now, orderId])).changed === 0) return (await run.rows<OrderRow>(SQL.ownOrder, [orderId, accountId]))[0];
  const [delivered] = await run.rows<OrderRow>(SQL.ownOrder, [orderId, accountId]);
  await run.change(SQL.sellPet, [delivered.petId]);
  await run.change(SQL.freePlace, [accountId]);
  return delivered;
}

/** The place-and-deliver work on any store's `Run`, inside the transaction `inTransaction` gives. */
export function orderWork(inTransaction: <T>(work: (run: Run) => Promise<T>) => Promise<T>): Pick<Store, 'placeOrder' | 'deliverOrder'> {
  return {
    placeOrder: (accountId, petId, cap, now) => inTransaction((run) => placeWith(run, accountId, petId, cap, now)),
    deliverOrder: (accountId, orderId, now) => inTransaction((run) => deliverWith(run, accountId, orderId, now)),
  };
}

/** The records' owner: the baseline knows one key, and keeps its records apart from the service's. */
const BENCH_KEY_ID = 0;
const RECORD_TTL_MS = 86_400_000;

/** The parameters of SQL.record for the pet just stored. */
export const recordOf = (id: number, name: string, categoryId: number, status: string, { key, fingerprint }: Keyed) => [
  BENCH_KEY_ID,
  key,
  fingerprint,
  JSON.stringify({ id, name, categoryId, status }),
  Date.now() + RECORD_TTL_MS,
];

/** The parameters of SQL.storedRecord. */
export const storedRecordOf = ({ key }: Keyed) => [BENCH_KEY_ID, key];

/** Whether a statement failed on a primary key, as each driver reports it, through TypeORM or not. */
export function isDuplicateKey(error: unknown): boolean {
  const { code, driverError } = error as { code?: string; driverError?: { code?: string } };
  return ['ER_DUP_ENTRY', 'SQLITE_CONSTRAINT_PRIMARYKEY'].includes(driverError?.code ?? code ?? '');
}

/** The service's SQLite settings (src/database/database-options.ts). */
export function prepareSqlite(db: { pragma(sql: string): unknown }): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
}

export function openStore(url: string): Store {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length));
    prepareSqlite(db);
    const page = db.prepare(SQL.page);
    const pageByStatus = db.prepare(SQL.pageByStatus);
    const byId = db.prepare(SQL.byId);
    const insert = db.prepare(SQL.insert);
    const record = db.prepare(SQL.record);
    const storedRecord = db.prepare(SQL.storedRecord);
    const insertWithRecord = db.transaction((name: string, categoryId: number, status: string, keyed: Keyed) => {
      const id = Number(insert.run(name, categoryId, status).lastInsertRowid);
      record.run(...recordOf(id, name, categoryId, status, keyed));
      return id;
    });
    const sqliteRun: Run = {
      rows: async <T>(sql: string, values: unknown[]) => db.prepare(sql).all(...values) as T[],
      change: async (sql, values) => {
        const result = db.prepare(sql).run(...values);
        return { changed: result.changes, id: Number(result.lastInsertRowid) };
      },
    };
    return {
      // One connection: the transaction runs alone, from BEGIN IMMEDIATE to COMMIT, after the check phase as every statement here.
      ...orderWork(async (work) => {
        await nextTurn();
        db.prepare('BEGIN IMMEDIATE').run();
        try {
          const result = await work(sqliteRun);
          db.prepare('COMMIT').run();
          return result;
        } catch (error) {
          db.prepare('ROLLBACK').run();
          throw error;
        }
      }),
      page: async (status, afterId, limit) => {
        await nextTurn();
        return (status ? pageByStatus.all(status, afterId, limit) : page.all(afterId, limit)) as Row[];
      },
      rows: async (sql, values = []) => db.prepare(sql).all(...values),
      byId: async (id) => {
        await nextTurn();
        return byId.get(id) as Row | undefined;
      },
      insert: async (name, categoryId, status) => {
        await nextTurn();
        return Number(insert.run(name, categoryId, status).lastInsertRowid);
      },
      insertOnce: async (name, categoryId, status, keyed) => {
        await nextTurn();
        try {
          return { id: insertWithRecord(name, categoryId, status, keyed) };
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
          return storedRecord.get(...storedRecordOf(keyed)) as Once;
        }
      },
    };
  }
  const pool = createPool({
    uri: url.replace(/^mariadb:/, 'mysql:'),
    connectionLimit: 10,
    charset: 'utf8mb4',
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: false,
  });
  // A keyed insert holds one connection from BEGIN to COMMIT.
  const transactions = pool.promise();
  const query = <T>(sql: string, values: unknown[]) =>
    new Promise<T>((resolve, reject) =>
      pool.getConnection((unavailable, connection) => {
        if (unavailable) return reject(unavailable);
        connection.query(sql, values, (error, result) => {
          connection.release();
          if (error) reject(error);
          else resolve(result as T);
        });
      }),
    );
  return {
    ...orderWork(async (work) => {
      const connection = await transactions.getConnection();
      try {
        await connection.beginTransaction();
        const result = await work({
          rows: async <T>(sql: string, values: unknown[]) => (await connection.query(sql, values))[0] as T[],
          change: async (sql, values) => {
            const [header] = (await connection.query(sql, values)) as unknown as [{ affectedRows: number; insertId: number }];
            return { changed: header.affectedRows, id: Number(header.insertId) };
          },
        });
        await connection.commit();
        return result;
      } catch (error) {
        await connection.rollback();
        throw error;
      } finally {
        connection.release();
      }
    }),
    page: (status, afterId, limit) => query<Row[]>(status ? SQL.pageByStatus : SQL.page, status ? [status, afterId, limit] : [afterId, limit]),
    byId: async (id) => (await query<Row[]>(SQL.byId, [id]))[0],
    rows: (sql, values = []) => query<unknown[]>(sql, values),
    insert: async (name, categoryId, status) => Number((await query<{ insertId: number }>(SQL.insert, [name, categoryId, status])).insertId),
    insertOnce: async (name, categoryId, status, keyed) => {
      const connection = await transactions.getConnection();
      try {
        await connection.beginTransaction();
        const [inserted] = await connection.query(SQL.insert, [name, categoryId, status]);
        const id = Number((inserted as { insertId: number }).insertId);
        await connection.query(SQL.record, recordOf(id, name, categoryId, status, keyed));
        await connection.commit();
        return { id };
      } catch (error) {
        await connection.rollback();
        if (!isDuplicateKey(error)) throw error;
        const [rows] = await connection.query(SQL.storedRecord, storedRecordOf(keyed));
        return (rows as Once[])[0];
      } finally {
        connection.release();
      }
    },
  };
}

/** A pet's statuses, as the service has them. */
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
const STATUSES = new Set<string>(PET_STATUSES);
const SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT';
const DEPRECATION = `@${Date.parse('2026-11-21T00:00:00Z') / 1000}`;
const PER_MINUTE = 100_000_000;
const PER_DAY = 1_000_000_000;

/** Helmet's headers as the service configures them (src/ops/security.ts), on every response. */
const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  [
    'content-security-policy',
    "default-src 'self';base-uri 'self';script-src 'self';style-src 'self' 'unsafe-inline';img-src 'self' data:;" +
      "font-src 'self' data:;connect-src 'self';object-src 'none';frame-ancestors 'none';form-action 'self'",
  ],
  ['cross-origin-opener-policy', 'same-origin'],
  ['cross-origin-resource-policy', 'same-origin'],
  ['origin-agent-cluster', '?1'],
  ['referrer-policy', 'no-referrer'],
  ['strict-transport-security', 'max-age=31536000; includeSubDomains'],
  ['x-content-type-options', 'nosniff'],
  ['x-dns-prefetch-control', 'off'],
  ['x-download-options', 'noopen'],
  ['x-frame-options', 'DENY'],
  ['x-permitted-cross-domain-policies', 'none'],
  ['x-xss-protection', '0'],
];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const keyHashes = new Map<string, string>();
if (process.env.BENCH_API_KEY) keyHashes.set(sha256(process.env.BENCH_API_KEY), 'bench');
const counters = new Map<string, { windowStart: number; count: number }>();

/**
 * The Error body of a refused request. A work function answers one in place
 * of its result, so that whoever answers the request sends it: the baseline
 * by hand, the floor by hand or as a NestJS exception.
 */
export class Refusal {
  constructor(
    readonly code: string,
    readonly message: string,
    readonly status: number,
  ) {}
}

const invalid = (message: string) => new Refusal('validation_failed', message, 400);
const toPet = (row: Row): Row => ({ id: Number(row.id), name: row.name, categoryId: Number(row.categoryId), status: row.status });
const fail = (reply: FastifyReply, { code, message, status }: Refusal) => reply.code(status).send({ code, message, status });
const isId = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
/** As the service, links start with PUBLIC_BASE_URL, never with a request's Host. */
const ORIGIN = (process.env.PUBLIC_BASE_URL ?? 'http://localhost:3000/v1').replace(/\/v1$/, '');

function decodeCursor(cursor: string): number {
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  return /^p1\.\d{1,16}$/.test(text) ? Number(text.slice(3)) : NaN;
}

/**
 * What every request costs before its route: the security headers and request
 * id, then, on /v1, the key's hash looked up and, unless `count` is off (a
 * rate limiter of its own counts), one in-memory counter with the rate-limit headers.
 */
export const beforeRoute =
  ({ count }: { count: boolean }) =>
  // Answers the reply when it has sent it, so Fastify runs nothing more for the request.
  async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    for (const [name, value] of SECURITY_HEADERS) reply.header(name, value);
    reply.header('x-request-id', request.id);
    // Like the service: operational routes outside /v1 need no key and are not counted.
    if (!request.url.startsWith('/v1/')) return undefined;
    reply.header('cache-control', 'private').header('vary', 'Authorization');
    let caller = request.ip;
    if (keyHashes.size) {
      const match = /^bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
      const keyId = match ? keyHashes.get(sha256(match[1])) : undefined;
      if (!keyId) {
        reply.header('www-authenticate', 'Bearer realm="animal-store"');
        return fail(reply, new Refusal('unauthorized', 'A valid API key is required', 401));
      }
      caller = keyId;
    }
    if (!count) return undefined;
    const now = Date.now();
    const windowStart = now - (now % 60_000);
    let counter = counters.get(caller);
    if (!counter || counter.windowStart !== windowStart) counters.set(caller, (counter = { windowStart, count: 0 }));
    counter.count += 1;
    reply.header('x-ratelimit-limit', PER_MINUTE);
    reply.header('x-ratelimit-remaining', PER_MINUTE - counter.count);
    reply.header('x-ratelimit-reset', (windowStart + 60_000) / 1000);
    // The IETF fields as the service writes them; the day is not counted apart here, its string is built all the same.
    const secondsLeft = Math.ceil((windowStart + 60_000 - now) / 1000);
    reply.header('ratelimit-policy', `"minute";q=${PER_MINUTE};w=60, "day";q=${PER_DAY};w=86400`);
    reply.header('ratelimit', `"minute";r=${PER_MINUTE - counter.count};t=${secondsLeft}, "day";r=${PER_DAY - counter.count};t=86400`);
    return undefined;
  };

/**
 * A GET's JSON, once serialized, with its ETag (a digest of the body and the
 * Link header) set on the reply; or nothing, the status set to 304, when
 * If-None-Match names the tag. The caller sends what it answers.
 */
export function tagJson(request: FastifyRequest, reply: FastifyReply, body: unknown): string | undefined {
  const json = JSON.stringify(body);
  // Only a next page's link is part of what the client holds; a successor link is not.
  const link = String(reply.getHeader('link') ?? '');
  const tag = tagOf(json, link.includes('rel="next"') ? link : '');
  reply.header('etag', tag);
  if (request.headers['if-none-match'] === tag) {
    reply.code(304);
    return undefined;
  }
  reply.type('application/json; charset=utf-8');
  return json;
}

/** A GET's result sent tagged, or its refusal sent with the Error body. */
export function sendTagged(request: FastifyRequest, reply: FastifyReply, result: unknown): FastifyReply {
  return result instanceof Refusal ? fail(reply, result) : reply.send(tagJson(request, reply, result));
}

/** The query of GET /v1/pets once checked: a limit from 1 to 100 and a known status, the cursor as sent. */
export interface PageQuery {
  readonly limit: number;
  readonly status?: string;
  readonly cursor?: string;
}

/** The query of GET /v1/pets as Fastify parsed it, checked by hand. */
export function readPageQuery(raw: unknown): PageQuery | Refusal {
  const query = raw as Record<string, string | undefined>;
  const limit = query.limit === undefined ? 20 : /^\d{1,3}$/.test(query.limit) ? Number(query.limit) : NaN;
  if (!(limit >= 1 && limit <= 100)) return invalid('limit must be an integer from 1 to 100');
  if (query.status !== undefined && !STATUSES.has(query.status)) return invalid('status is invalid');
  return { limit, status: query.status, cursor: query.cursor };
}

/** GET /v1/pets once its query is checked: a page, with its `Link` to the next one set on the reply. */
export const findPage =
  (store: Store) =>
  async (request: FastifyRequest, reply: FastifyReply, { limit, status, cursor }: PageQuery): Promise<Row[] | Refusal> => {
    const afterId = cursor === undefined ? 0 : decodeCursor(cursor);
    if (!(afterId >= 0)) return invalid('cursor is malformed');
    const rows = await store.page(status, afterId, limit + 1);
    const pets = rows.slice(0, limit).map(toPet);
    if (rows.length > limit) {
      const next = new URLSearchParams({ limit: String(limit) });
      if (status) next.set('status', status);
      next.set('cursor', Buffer.from(`p1.${pets[pets.length - 1].id}`).toString('base64url'));
      reply.header('link', `<${ORIGIN}/v1/pets?${next}>; rel="next"`);
    }
    return pets;
  };

/** GET /v1/pets: a page, its `Link` to the next one, tagged. */
export const listPets = (store: Store) => {
  const find = findPage(store);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const query = readPageQuery(request.query);
    return sendTagged(request, reply, query instanceof Refusal ? query : await find(request, reply, query));
  };
};

/** GET /v1/pets/:petId, deprecated: one pet, its deprecation headers set on the reply. */
export const findPet =
  (store: Store) =>
  async (request: FastifyRequest, reply: FastifyReply): Promise<Row | Refusal> => {
    reply.header('deprecation', DEPRECATION);
    reply.header('sunset', SUNSET);
    reply.header('link', `<${ORIGIN}/v1/pets>; rel="successor-version"`);
    const { petId } = request.params as { petId: string };
    const id = /^\d{1,16}$/.test(petId) ? Number(petId) : NaN;
    if (!isId(id)) return invalid('petId is invalid');
    const row = await store.byId(id);
    return row ? toPet(row) : new Refusal('not_found', `No pet with id ${id}`, 404);
  };

/** GET /v1/pets/:petId: one pet, tagged. */
export const getPet = (store: Store) => {
  const find = findPet(store);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => sendTagged(request, reply, await find(request, reply));
};

/** A create's body once checked: the pet to store. */
export interface NewPet {
  readonly name: string;
  readonly categoryId: number;
  readonly status: string;
}

/** A create's body checked by hand: the pet to store, or what is wrong with it. */
export function checkNewPet(body: unknown): NewPet | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'Request body must be a JSON object';
  const { name, categoryId, status = 'available', ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length) return 'unknown fields';
  if (typeof name !== 'string' || !/\S/.test(name) || [...name].length > 255) return 'name is invalid';
  if (!isId(categoryId)) return 'categoryId is invalid';
  if (typeof status !== 'string' || !STATUSES.has(status)) return 'status is invalid';
  return { name, categoryId, status };
}

/**
 * POST /v1/pets once its body is checked: one insert, 201; with an
 * Idempotency-Key, the insert and its record in one transaction. The key's
 * fingerprint is the digest of the body as sent.
 */
/** What storing a checked pet answers: the pet stored now, or the answer a create with the same Idempotency-Key stored before. */
export type Stored = { readonly pet: Row } | { readonly replayed: string };

/** A checked pet stored: at once, or with an Idempotency-Key its record in the same transaction, a retry getting the stored answer. */
export const storeNewPet =
  (store: Store) =>
  async (request: FastifyRequest, { name, categoryId, status }: NewPet): Promise<Stored | Refusal> => {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string') return { pet: { id: await store.insert(name, categoryId, status), name, categoryId, status } };
    if (!/^[\x20-\x7e]{1,255}$/.test(key)) return invalid('Idempotency-Key is invalid');
    const fingerprint = hash('sha256', JSON.stringify(request.body), 'hex');
    const once = await store.insertOnce(name, categoryId, status, { key, fingerprint });
    if ('id' in once) return { pet: { id: once.id, name, categoryId, status } };
    if (once.fingerprint !== fingerprint) return new Refusal('idempotency_key_reused', 'Idempotency-Key was used with another body', 422);
    return { replayed: once.body };
  };

const tagOf = (json: string, link: string) => `"${hash('sha256', `${json}\n${link}`, 'base64url').slice(0, 22)}"`;

/** A create's 201, with the pet's tag and Location: the pet stored now, or the stored answer marked as replayed. */
export function answerStored(request: FastifyRequest, reply: FastifyReply, stored: Stored): { readonly body: Row | string } {
  const json = 'pet' in stored ? JSON.stringify(stored.pet) : stored.replayed;
  reply.code(201).header('etag', tagOf(json, '')).header('location', `${ORIGIN}/v1/pets/${(JSON.parse(json) as Row).id}`);
  if ('pet' in stored) return { body: stored.pet };
  reply.header('idempotent-replayed', 'true').type('application/json; charset=utf-8');
  return { body: stored.replayed };
}

/** POST /v1/pets for a body already checked: stored, then sent. */
export const storePet = (store: Store) => {
  const storeChecked = storeNewPet(store);
  return async (request: FastifyRequest, reply: FastifyReply, pet: NewPet): Promise<FastifyReply> => {
    const stored = await storeChecked(request, pet);
    return stored instanceof Refusal ? fail(reply, stored) : reply.send(answerStored(request, reply, stored).body);
  };
};

/** POST /v1/pets: the body checked by hand, then stored. */
export const createPet = (store: Store) => {
  const storeChecked = storePet(store);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const pet = checkNewPet(request.body);
    return typeof pet === 'string' ? fail(reply, invalid(pet)) : storeChecked(request, reply, pet);
  };
};

/** The bench key's account: the one the bench makes, read once. */
let benchAccount: Promise<number> | undefined;
const BENCH_OPEN_ORDERS = 5_000;

const orderJson = (order: OrderRow) => ({
  id: Number(order.id),
  petId: Number(order.petId),
  status: order.status,
  placedAt: new Date(Number(order.placedAt)).toISOString(),
  ...(order.deliveredAt == null ? {} : { deliveredAt: new Date(Number(order.deliveredAt)).toISOString() }),
});

/** POST /v1/store/orders: the body checked by hand, the order placed, 201 with its Location. */
export const placeOrder = (store: Store, accountOf: () => Promise<number>) => async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
  const body = request.body as Record<string, unknown> | null;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).length !== 1 || !isId(body.petId)) return fail(reply, invalid('petId is invalid'));
  const now = Date.now();
  const placed = await store.placeOrder(await accountOf(), body.petId, BENCH_OPEN_ORDERS, now);
  if (placed === 'no_pet') return fail(reply, new Refusal('not_found', `No pet with id ${body.petId}`, 404));
  if (placed === 'not_available') return fail(reply, new Refusal('pet_not_available', 'The pet is not available', 409));
  if (placed === 'too_many') return fail(reply, new Refusal('too_many_open_orders', 'Too many placed orders', 409));
  reply.code(201).header('location', `${ORIGIN}/v1/store/orders/${placed.id}`);
  return reply.send(orderJson({ id: placed.id, accountId: 0, petId: body.petId, status: 'placed', placedAt: now, deliveredAt: null }));
};

/** POST /v1/store/orders/:orderId/deliver: the account's order delivered, 200. */
export const deliverOrder = (store: Store, accountOf: () => Promise<number>) => async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
  const { orderId } = request.params as { orderId: string };
  const id = /^\d{1,16}$/.test(orderId) ? Number(orderId) : NaN;
  if (!isId(id)) return fail(reply, invalid('orderId is invalid'));
  const order = await store.deliverOrder(await accountOf(), id, Date.now());
  if (!order) return fail(reply, new Refusal('not_found', `No order with id ${id}`, 404));
  if (order.status !== 'delivered') return fail(reply, new Refusal('invalid_transition', 'The order is cancelled', 409));
  return reply.send(orderJson(order));
};

/** The account the bench's key belongs to, read from the store once. */
export function benchAccountOf(rows: () => Promise<Array<{ id: number | string }>>): () => Promise<number> {
  return () => (benchAccount ??= rows().then(([row]) => Number(row.id)));
}
