import { Socket } from 'node:net';
import { Controller, Get } from '@nestjs/common';
import { RouteNotFoundError } from '../src/errors/http/request-errors';
import { Clock } from '../src/config/clock';
import { Public } from '../src/http/public.decorator';
import { ApiClient, ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { FakeClock } from './support/fake-clock';
import { OpenApiContract } from './support/openapi-contract';
import { createTestApp, TestApp } from './support/test-app';

/** Holds requests in their handler until the spec releases it, so they stay in flight as long as the spec likes. */
class Gate {
  entered = 0;
  private open!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.open = resolve));

  async pass(): Promise<void> {
    this.entered += 1;
    await this.opened;
  }

  release(): void {
    this.open();
  }

  /** Resolves once `count` requests wait in the gate: each then holds its place. */
  async reached(count: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (this.entered < count) {
      if (Date.now() > deadline) throw new Error(`${this.entered} of ${count} requests reached the gate`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

let gate = new Gate();

/** A route of the spec's own that answers when the gate opens: slow on demand, as no route of the service is. */
@Controller({ path: 'held', version: '1' })
class HeldController {
  @Get()
  async held(): Promise<{ held: boolean }> {
    await gate.pass();
    return { held: true };
  }

  @Get('failing')
  async failing(): Promise<never> {
    await gate.pass();
    throw new RouteNotFoundError();
  }

  @Public()
  @Get('public')
  async heldForAnyone(): Promise<{ held: boolean }> {
    await gate.pass();
    return { held: true };
  }
}

const POLICY_OF_FREE = '"minute";q=100;w=60, "day";q=1000;w=86400, "answers";q=1000;w=60';

describeOnStore('the concurrency cap', () => {
  afterEach(() => gate.release());
  beforeEach(() => (gate = new Gate()));

  describe('a free plan capped at 2', () => {
    let testApp: TestApp;
    const clientOf = (secret: string) => testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
    const freeKey = async (account?: string): Promise<ApiClient> => clientOf((await testApp.createKey({ plan: 'free', account })).secret);

    const clock = new FakeClock(Date.UTC(2030, 0, 1, 12, 0, 0));

    beforeAll(async () => {
      testApp = await createTestApp({
        env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":100,"perDay":1000,"concurrency":2}}', BAN_AFTER_REJECTIONS: '2', BAN_SECONDS: '600' },
        controllers: [HeldController],
        overrides: [{ provide: Clock, useValue: clock }],
      });
    });
    afterAll(() => testApp?.close());

    it("holds two requests of an account in flight, answers a third of any of its keys 429 with Retry-After 1 and the cap in RateLimit-Policy, and lets one in again once an answer is done", async () => {
      const [first, sibling, stranger] = [await freeKey('capped'), await freeKey('capped'), await freeKey()];
      const held = [first.get('/v1/held'), first.get('/v1/held')];
      await gate.reached(2);

      const refused = await sibling.get('/v1/pets');
      expectErrorBody(refused, 429, 'rate_limited');
      expect((refused.body as { message: string }).message).toBe('Too many requests in flight: at most 2 at once; retry after 1 s (Retry-After)');
      expect(refused.headers).toMatchObject({
        'retry-after': '1',
        'ratelimit-policy': `${POLICY_OF_FREE}, "concurrency";q=2;qu="concurrent-requests"`,
        'x-ratelimit-limit': '100',
        // The two held count in the account's minute; the refused one spends nothing.
        'x-ratelimit-remaining': '98',
        ratelimit: expect.stringMatching(/^"minute";r=98;t=\d+, "day";r=998;t=\d+, "answers";r=998;t=\d+$/),
      });
      // The whole answer as the API document states a 429 of listPets.
      expect(OpenApiContract.fromFile().problems('listPets', refused)).toEqual([]);
      // Another account's places are its own.
      expect((await stranger.get('/v1/pets')).status).toBe(200);

      gate.release();
      expect((await Promise.all(held)).map((response) => response.status)).toEqual([200, 200]);
      const after = await sibling.get('/v1/pets');
      expect(after.status).toBe(200);
      expect(after.headers['ratelimit-policy']).toBe(POLICY_OF_FREE);
    });

    it('counts none of its refusals toward a ban, however many and however long after the first: the key is served once a place frees', async () => {
      const client = await freeKey();
      const held = [client.get('/v1/held'), client.get('/v1/held')];
      await gate.reached(2);
      const refusals: ApiResponse[] = [];
      for (let second = 0; second < 3; second++) {
        for (let i = 0; i < 5; i++) refusals.push(await client.get('/v1/pets'));
        // Past the second of a burst: a refusal of the rate limits here would count toward the ban.
        clock.advance(1_000);
      }
      for (const refusal of refusals) {
        expectErrorBody(refusal, 429, 'rate_limited');
        expect(refusal.headers['retry-after']).toBe('1');
      }

      gate.release();
      expect((await Promise.all(held)).map((response) => response.status)).toEqual([200, 200]);
      expect((await client.get('/v1/pets')).status).toBe(200);
    });
  });

  describe('a free plan capped at 1', () => {
    let testApp: TestApp;
    let secret: string;
    let client: ApiClient;

    beforeAll(async () => {
      testApp = await createTestApp({
        env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":1000,"perDay":10000,"concurrency":1}}', BAN_AFTER_REJECTIONS: '1000' },
        controllers: [HeldController],
      });
      secret = (await testApp.createKey({ plan: 'free' })).secret;
      client = testApp.anonymous.withHeaders({ authorization: `Bearer ${secret}` });
    });
    afterAll(() => testApp?.close());

    /** One request after another, each of which finds the place free only if the one before gave it back. */
    async function inTurn(requests: Array<() => Promise<ApiResponse>>): Promise<number[]> {
      const statuses: number[] = [];
      for (const request of requests) statuses.push((await request()).status);
      return statuses;
    }

    it('gives the place back whatever the answer: an error, a refused request, a 304', async () => {
      gate.release();
      const tag = String((await client.get('/v1/pets')).headers.etag);
      const statuses = await inTurn([
        () => client.get('/v1/held/failing'),
        () => client.get('/v1/pets?limit=abc'),
        () => client.get('/v1/pets', { 'if-none-match': tag }),
        () => client.get('/v1/pets', { 'if-none-match': tag }),
        () => client.request({ method: 'POST', url: '/v1/pets', payload: '{', headers: { 'content-type': 'application/json' } }),
        () => client.get('/v1/held'),
      ]);
      expect(statuses).toEqual([404, 400, 304, 304, 400, 200]);
    });

    it('gives the place back when the client hangs up while its request runs', async () => {
      await testApp.app.listen(0, '127.0.0.1');
      const { port } = testApp.app.getHttpServer().address() as { port: number };
      const socket = new Socket();
      await new Promise<void>((resolve) => socket.connect(port, '127.0.0.1', resolve));
      socket.write(`GET /v1/held HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${secret}\r\n\r\n`);
      await gate.reached(1);
      expect((await client.get('/v1/pets')).status).toBe(429);

      socket.destroy();
      // The handler still waits at the gate: only the closed connection can have given the place back.
      const deadline = Date.now() + 5_000;
      let status = 429;
      while (status === 429 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        status = (await client.get('/v1/pets')).status;
      }
      expect(status).toBe(200);
      expect(gate.entered).toBe(1);
    });

    it("caps an address by the free plan's number, and leaves the @SkipThrottle() operational endpoints uncapped", async () => {
      const held = testApp.anonymous.get('/v1/held/public');
      await gate.reached(1);
      expectErrorBody(await testApp.anonymous.get('/v1/no-such-thing'), 429, 'rate_limited');
      // Another address has places of its own.
      expectErrorBody(await testApp.anonymous.request({ url: '/v1/no-such-thing', remoteAddress: '192.0.2.7' }), 404, 'not_found');
      expect((await testApp.anonymous.get('/healthz')).status).toBe(200);
      const metrics = await testApp.anonymous.get('/metrics');
      expect(metrics.status).toBe(200);
      // The cap's refusals are the rate limit's in the operators' counter too.
      expect(metrics.text).toMatch(/^rate_limit_rejections_total\{code="rate_limited"\} [1-9]\d*$/m);
      gate.release();
      expect((await held).status).toBe(200);
    });
  });
});
