import { connect, type AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { describeOnStore } from './support/describe-store';
import { sendRaw } from './support/raw-http';
import { createTestApp, TestApp } from './support/test-app';
import { waitFor } from './support/wait-for';

const HEADERS_TIMEOUT_MS = 500;
const REQUEST_TIMEOUT_MS = 1_500;
/** The slow clients' pace: one byte every two seconds, as a slowloris sends. */
const BYTE_EVERY_MS = 2_000;
/** Longest a slow client is watched; the server is expected to have closed it long before. */
const WATCH_MS = 10_000;
/** Time the server may take past a bound: the expiry check runs at most every second. */
const LATITUDE_MS = 2_000;

interface SlowClient {
  /** Milliseconds from connecting until the server closed the connection; undefined if it was still open after WATCH_MS. */
  readonly closedAfterMs?: number;
  readonly bytesSent: number;
}

/** Connects, sends `first` at once, then `dribbled` one byte at a time every BYTE_EVERY_MS, until the server closes or WATCH_MS pass. */
function slowClient(port: number, dribbled: string, first = ''): Promise<SlowClient> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let connectedAt = Date.now();
    let sent = 0;
    let settled = false;
    const ticker = setInterval(() => sent < dribbled.length && socket.write(dribbled[sent++]), BYTE_EVERY_MS);
    const giveUp = setTimeout(() => finish(undefined), WATCH_MS);
    const finish = (closedAfterMs: number | undefined) => {
      if (settled) return;
      settled = true;
      clearInterval(ticker);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ closedAfterMs, bytesSent: first.length + sent });
    };
    socket.on('connect', () => {
      connectedAt = Date.now();
      if (first) socket.write(first);
      if (dribbled) socket.write(dribbled[sent++]);
    });
    // A reset from the server closes the connection as well: 'close' follows and says when.
    socket.on('error', () => undefined);
    socket.on('close', () => finish(Date.now() - connectedAt));
  });
}

describeOnStore('slow clients', () => {
  let testApp: TestApp;
  let port: number;

  beforeAll(async () => {
    testApp = await createTestApp({ env: { HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });
    await testApp.app.listen(0, '127.0.0.1');
    port = (testApp.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => testApp?.close());

  const openConnections = () => new Promise<number>((resolve, reject) => testApp.app.getHttpServer().getConnections((error, count) => (error ? reject(error) : resolve(count))));
  const countPets = async (): Promise<number> => Number((await testApp.app.get(DataSource).query('SELECT COUNT(*) AS n FROM pets'))[0].n);

  it(`closes 300 connections that dribble their headers within HEADERS_TIMEOUT_MS, and serves a normal client meanwhile`, async () => {
    const head = `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${testApp.apiKey}\r\n\r\n`;
    const slow = Array.from({ length: 300 }, () => slowClient(port, head));
    await waitFor(async () => (await openConnections()) >= 300, 'the 300 slow connections to be open', 5_000);

    const started = Date.now();
    const normal = await sendRaw(port, `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${testApp.apiKey}\r\nConnection: close\r\n\r\n`);
    expect({ status: normal.response?.status, timedOut: normal.timedOut }).toEqual({ status: 200, timedOut: false });
    expect(Date.now() - started).toBeLessThan(1_000);

    const clients = await Promise.all(slow);
    const unclosed = clients.filter(({ closedAfterMs }) => closedAfterMs === undefined || closedAfterMs > HEADERS_TIMEOUT_MS + LATITUDE_MS);
    expect(unclosed).toEqual([]);
    // None of them got a whole head out, so the server, not the request's end, closed each one.
    expect(Math.max(...clients.map(({ bytesSent }) => bytesSent))).toBeLessThan(head.length);
  });

  it('closes a connection that sends nothing at all within HEADERS_TIMEOUT_MS', async () => {
    const { closedAfterMs } = await slowClient(port, '');
    expect(closedAfterMs).toBeDefined();
    expect(closedAfterMs!).toBeLessThanOrEqual(HEADERS_TIMEOUT_MS + LATITUDE_MS);
  });

  it('closes a connection whose body arrives slower than REQUEST_TIMEOUT_MS allows, and creates nothing', async () => {
    const pets = await countPets();
    const body = JSON.stringify({ name: 'Slow', categoryId: 3 });
    const head = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${testApp.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { closedAfterMs, bytesSent } = await slowClient(port, body, head);
    expect(closedAfterMs).toBeDefined();
    // The head came at once, so the headers' bound did not apply: the request's did.
    expect(closedAfterMs!).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(closedAfterMs!).toBeLessThanOrEqual(REQUEST_TIMEOUT_MS + LATITUDE_MS);
    expect(bytesSent).toBeLessThan(head.length + body.length);
    expect(await countPets()).toBe(pets);
  });
});
