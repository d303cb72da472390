/**
 * The reference the service is measured against: bare Fastify doing the same
 * work per request with the same drivers (a key hash looked up in a Map, one
 * in-memory counter, the same SQL, the same JSON and headers), and nothing else.
 * Its responses carry the service's headers, security headers and request id
 * included, so the two send the same header lines (test/bench-baseline.e2e-spec.ts).
 * Its SQLite queries wait for the event loop's check phase and its MySQL
 * queries take a pool connection before the query is built: the lean way to
 * drive each driver, which the service's TypeORM path is measured against.
 * It imports no service code; the work per request is in ./work.ts.
 *
 * Environment: PORT, HOST, DATABASE_URL, and BENCH_API_KEY (absent: no key check).
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { beforeRoute, benchAccountOf, createPet, deliverOrder, getPet, listPets, openStore, placeOrder, SQL } from './work';

const store = openStore(process.env.DATABASE_URL ?? '');
const app = Fastify({ bodyLimit: 16_384, genReqId: () => randomUUID() });

app.addHook('onRequest', beforeRoute({ count: true }));
app.get('/healthz', async () => ({ status: 'ok' }));
app.get('/v1/pets', listPets(store));
app.get('/v1/pets/:petId', getPet(store));
app.post('/v1/pets', createPet(store));
const accountOf = benchAccountOf(async () => (await store.rows(SQL.benchAccount)) as Array<{ id: number }>);
app.post('/v1/store/orders', placeOrder(store, accountOf));
app.post('/v1/store/orders/:orderId/deliver', deliverOrder(store, accountOf));

app.listen({ port: Number(process.env.PORT ?? 3201), host: process.env.HOST ?? '127.0.0.1' }).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
