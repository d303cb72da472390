import { Body, Controller, Get, HttpCode, Module, NotFoundException, Param, Post } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IsString, Length } from 'class-validator';
import { Column, DataSource, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { defineScope } from '../src/auth/domain/scope';
import { RequireScope } from '../src/auth/http/require-scope.decorator';
import { DomainError } from '../src/errors/domain/domain-error';
import { NOT_FOUND } from '../src/errors/domain/error-code';
import type { KeyCaller } from '../src/callers/caller';
import { Public } from '../src/http/public.decorator';
import { CurrentCaller } from '../src/http/request-context';
import { IdempotencyModule } from '../src/idempotency/idempotency.module';
import { Idempotent } from '../src/idempotency/http/idempotent.decorator';
import { ApiClient, ApiResponse, expectErrorBody } from './support/api-client';
import { describeOnStore } from './support/describe-store';
import { createTestApp, TestApp } from './support/test-app';

/**
 * A feature module as a backend developer adds one: a controller, a
 * class-validator DTO, a plain Nest exception, a scope of its own declared
 * beside the routes that use it, a domain error that knows nothing of HTTP,
 * and a table's entity registered in the module itself.
 */
const GREETINGS_SEND = defineScope('greetings:send', 'Send greeting cards');

class GreetingWithdrawnError extends DomainError {
  readonly code = NOT_FOUND;

  constructor() {
    super('This greeting was withdrawn');
  }
}

@Entity('greeting_cards')
class GreetingCardOrmEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ length: 20 })
  to: string;
}

class CreateGreetingDto {
  @IsString()
  @Length(1, 20)
  name: string;
}

@Controller({ path: 'greetings', version: '1' })
class GreetingsController {
  private cardsSent = 0;

  @Post()
  create(@Body() body: CreateGreetingDto, @CurrentCaller() caller: KeyCaller): { text: string; keyId: number } {
    return { text: `Hello, ${body.name}`, keyId: caller.keyId };
  }

  @Get(':greetingId')
  get(@Param('greetingId') greetingId: string): never {
    throw new NotFoundException(`No greeting ${greetingId}`);
  }

  /** Made safe to retry in one line; the status declared below the decorator still applies, replays included. */
  @Post('cards')
  @RequireScope(GREETINGS_SEND)
  @Idempotent()
  @HttpCode(202)
  sendCard(@Body() body: CreateGreetingDto): { card: number; to: string } {
    return { card: ++this.cardsSent, to: body.name };
  }

  @Get('withdrawn/card')
  withdrawn(): never {
    throw new GreetingWithdrawnError();
  }

  @Public()
  @Get('public/hello')
  hello(): { hello: string } {
    return { hello: 'world' };
  }
}

@Module({ imports: [TypeOrmModule.forFeature([GreetingCardOrmEntity]), IdempotencyModule], controllers: [GreetingsController] })
class GreetingsModule {}

const remaining = (response: ApiResponse) => Number(response.headers['x-ratelimit-remaining']);

function expectRateLimitHeaders(response: ApiResponse, limit: number): void {
  expect(response.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(String(response.headers['x-ratelimit-remaining'])).toMatch(/^\d+$/);
  expect(String(response.headers['x-ratelimit-reset'])).toMatch(/^\d+$/);
  expect(response.headers['ratelimit-policy']).toBe(`"minute";q=${limit};w=60, "day";q=100;w=86400, "answers";q=${10 * limit};w=60`);
}

describeOnStore('a module added the way a backend developer adds one', () => {
  let testApp: TestApp;
  let keyId: number;
  let client: ApiClient;

  beforeAll(async () => {
    testApp = await createTestApp({ env: { RATE_LIMIT_PLANS: '{"free":{"perMinute":8,"perDay":100}}' }, modules: [GreetingsModule] });
    const key = await testApp.createKey({ plan: 'free' });
    keyId = key.id;
    client = testApp.anonymous.withHeaders({ authorization: `Bearer ${key.secret}` });
  });
  afterAll(() => testApp?.close());

  it('is protected by default: without a key 401 with the Error body, WWW-Authenticate and the rate-limit headers', async () => {
    const response = await testApp.anonymous.post('/v1/greetings', { name: 'Rex' });
    expectErrorBody(response, 401, 'unauthorized');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="animal-store"');
    expectRateLimitHeaders(response, 8);
  });

  it("spends the caller's one quota, in the same sequence as /v1/pets, and hands the handler its caller", async () => {
    const first = await client.post<{ text: string; keyId: number }>('/v1/greetings', { name: 'Rex' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ text: 'Hello, Rex', keyId });
    const sequence = [first, await client.get('/v1/pets'), await client.post('/v1/greetings', { name: 'Tom' }), await client.get('/v1/pets')];
    expect(sequence.map(remaining)).toEqual([7, 6, 5, 4]);
    sequence.forEach((response) => expectRateLimitHeaders(response, 8));
  });

  it('answers an invalid body 400 validation_failed, naming the field', async () => {
    const response = await client.post('/v1/greetings', { name: '' });
    expectErrorBody(response, 400, 'validation_failed');
    expect((response.body as { message: string }).message).toBe('name must be longer than or equal to 1 characters');
    expectRateLimitHeaders(response, 8);
  });

  it('answers a plain NotFoundException 404 with the Error body', async () => {
    const response = await client.get('/v1/greetings/7');
    expectErrorBody(response, 404, 'not_found');
    expectRateLimitHeaders(response, 8);
  });

  it('serves a @Public() route without a key, still limited by the client address', async () => {
    const from = (remoteAddress: string) => testApp.anonymous.request<{ hello: string }>({ url: '/v1/greetings/public/hello', remoteAddress });
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await from('203.0.113.9'));
    answers.forEach((response, i) => {
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ hello: 'world' });
      expect(remaining(response)).toBe(7 - i);
    });
    const refused = await from('203.0.113.9');
    expectErrorBody(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(remaining(await from('198.51.100.4'))).toBe(7);
  });

  it('makes a create-like route safe to retry with @Idempotent() alone', async () => {
    const other = await testApp.createKey({ plan: 'free' });
    const sender = testApp.anonymous.withHeaders({ authorization: `Bearer ${other.secret}` });
    const send = (key: string, name: string) => sender.withHeaders({ 'idempotency-key': key }).post<{ card: number; to: string }>('/v1/greetings/cards', { name });
    const first = await send('card-1', 'Rex');
    const retry = await send('card-1', 'Rex');
    const next = await send('card-2', 'Rex');
    expect([first.status, retry.status, next.status]).toEqual([202, 202, 202]);
    expect(retry.body).toEqual(first.body);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(next.body.card).toBe(first.body.card + 1);
    expectErrorBody(await send('card-1', 'Tom'), 422, 'idempotency_key_reused');
  });

  it("owns its scope, and its domain error carries no status: a key without the module's scope is 403 naming it, and its error is answered with its code's status and its own message", async () => {
    const reader = await testApp.createKey({ plan: 'free', scopes: ['pets:read'] });
    const refused = await testApp.anonymous.withHeaders({ authorization: `Bearer ${reader.secret}` }).post('/v1/greetings/cards', { name: 'Rex' });
    expectErrorBody(refused, 403, 'insufficient_scope');
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="animal-store", error="insufficient_scope", scope="greetings:send"');
    const withdrawn = await client.get('/v1/greetings/withdrawn/card');
    expect({ status: withdrawn.status, body: withdrawn.body }).toEqual({
      status: 404,
      body: { code: 'not_found', message: 'This greeting was withdrawn', status: 404 },
    });
    expectRateLimitHeaders(withdrawn, 8);
  });

  it("registers its table's entity in its own module, and the service's DataSource knows it without a list elsewhere", () => {
    expect(testApp.app.get(DataSource).getMetadata(GreetingCardOrmEntity).tableName).toBe('greeting_cards');
  });
});
