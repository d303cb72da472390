import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { ServerResponse } from 'node:http';
import { join } from 'node:path';
import * as requestId from '../src/ops/request-id';
import { AccessGuard } from '../src/auth/http/access.guard';
import { AllExceptionsFilter } from '../src/errors/http/all-exceptions.filter';
import { ConditionalGetInterceptor } from '../src/http/conditional-get';
import { EntityTagInterceptor } from '../src/http/entity-tag';
import { StrictValidationPipe } from '../src/http/validation';
import { IdempotencyInterceptor } from '../src/idempotency/http/idempotency.interceptor';
import { PetsController } from '../src/pets/http/pets.controller';
import { PlanThrottlerGuard } from '../src/rate-limit/http/plan-throttler.guard';
import { describeOnStore } from './support/describe-store';
import { createTestApp, TestApp } from './support/test-app';

/** The steps of "The way of a request" in the README, by the name each one starts with in bold. */
function readmeSteps(): string[] {
  const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
  const list = readme.slice(readme.indexOf('The way of a request'));
  const steps: string[] = [];
  for (const line of list.split('\n').slice(1)) {
    const step = /^(\d+)\. \*\*([^*]+)\*\*/.exec(line);
    if (step) steps.push(step[2]);
    else if (steps.length > 0 && line.trim() === '') break;
  }
  return steps;
}

/** The steps one request passed, in order, each handler on its own: a step met twice in a row is one handler run twice. */
const trail: string[] = [];
const record = (step: string) => {
  if (trail.at(-1) !== step) trail.push(step);
};

type Method = (this: unknown, ...args: unknown[]) => unknown;

/** Runs `run` as it would, after recording `step`. */
function traced(step: string, run: Method): Method {
  return function (this: unknown, ...args: unknown[]) {
    record(step);
    return run.apply(this, args);
  };
}

/**
 * Records `step` whenever `target[method]` runs, then runs it. The function's
 * own metadata (a handler's route, its decorators) is copied to the spy, as Nest reads it there.
 */
function trace(target: object, method: string, step: string): void {
  const original = (target as Record<string, Method>)[method];
  const spy = jest.spyOn(target as Record<string, Method>, method).mockImplementation(traced(step, original));
  for (const key of Reflect.getOwnMetadataKeys(original)) Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, original), spy);
}

const REQUEST_HOOKS = ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse', 'onError'];

/** The hooks already wrapped: each onRoute hook that runs hands the route's hooks over again. */
const tracedHooks = new WeakSet<Method>();

/** A hook's step: its function's name, as the README lists it. */
function tracedHook(hookName: string, hook: Method): Method {
  if (tracedHooks.has(hook)) return hook;
  const wrapped = traced(hook.name || `${hookName} hook`, hook);
  tracedHooks.add(wrapped);
  return wrapped;
}

/**
 * Wraps every request hook and content-type parser the service adds to its
 * Fastify instance, from its creation on, a route's own hooks included; each
 * is added with the `this` it was asked on, so a plugin's hooks stay in its own context.
 */
function traceFastify(fastify: FastifyInstance): void {
  const target = fastify as unknown as { addHook: Method; addContentTypeParser: Method };
  const { addHook, addContentTypeParser } = target;
  target.addHook = function (name, hook) {
    // A route's own hooks, which an onRoute hook may add, are traced once it has run.
    if (name === 'onRoute') {
      return addHook.call(this, name, function (this: unknown, route: Record<string, unknown>) {
        (hook as Method).call(this, route);
        for (const hookName of REQUEST_HOOKS) {
          const own = route[hookName];
          if (own !== undefined) route[hookName] = (Array.isArray(own) ? own : [own]).map((ownHook: Method) => tracedHook(hookName, ownHook));
        }
      });
    }
    return addHook.call(this, name, REQUEST_HOOKS.includes(name as string) ? tracedHook(name as string, hook as Method) : hook);
  };
  target.addContentTypeParser = function (...args) {
    const parser = args.pop() as Method;
    // Three parameters, as the parser has: Fastify reads a parser of two as one that returns a promise.
    return addContentTypeParser.call(this, ...args, function (this: unknown, request: unknown, payload: unknown, done: unknown) {
      record(parser.name);
      return parser.call(this, request, payload, done);
    });
  };
}

/** Records each listener of a response's `close`, named after the step that added it, when it runs. */
function traceCloseListeners(): void {
  const once = ServerResponse.prototype.once;
  jest.spyOn(ServerResponse.prototype, 'once').mockImplementation(function (this: ServerResponse, event: string | symbol, listener: (...args: unknown[]) => void) {
    const step = trail.at(-1);
    return once.call(this, event, event === 'close' && step !== undefined ? (traced(`${step}'s close listener`, listener) as never) : listener);
  });
}

/** An origin CORS_ORIGINS lists, so that Nest's CORS hook has its work to show. */
const ORIGIN = 'https://shop.example';

describeOnStore('the way of a request', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    const seen = new WeakSet<object>();
    const getInstance = FastifyAdapter.prototype.getInstance;
    jest.spyOn(FastifyAdapter.prototype, 'getInstance').mockImplementation(function (this: FastifyAdapter) {
      const fastify = getInstance.call(this) as FastifyInstance;
      if (!seen.has(fastify)) {
        seen.add(fastify);
        traceFastify(fastify);
      }
      return fastify as never;
    });
    trace(requestId, 'requestIdFor', 'genReqId');
    traceCloseListeners();
    trace(PlanThrottlerGuard.prototype, 'canActivate', 'PlanThrottlerGuard');
    trace(AccessGuard.prototype, 'canActivate', 'AccessGuard');
    trace(ConditionalGetInterceptor.prototype, 'intercept', 'ConditionalGetInterceptor');
    trace(EntityTagInterceptor.prototype, 'intercept', 'EntityTagInterceptor');
    trace(IdempotencyInterceptor.prototype, 'intercept', 'IdempotencyInterceptor');
    trace(StrictValidationPipe.prototype, 'transform', 'StrictValidationPipe');
    trace(PetsController.prototype, 'listPets', 'The controller');
    trace(PetsController.prototype, 'createPet', 'The controller');
    trace(AllExceptionsFilter.prototype, 'catch', 'AllExceptionsFilter');
    // With the optional steps that settings turn on: CORS and the load shedding (at a bound no test reaches).
    testApp = await createTestApp({ env: { CORS_ORIGINS: ORIGIN, MAX_EVENT_LOOP_DELAY_MS: '60000' } });
  });
  afterAll(async () => {
    await testApp?.close();
    jest.restoreAllMocks();
  });

  /** The steps a request passes, recorded while it alone is in flight, and its answer. */
  async function stepsOf<T extends { status: number; headers: Record<string, unknown> }>(send: () => Promise<T>, status: number): Promise<{ steps: string[]; response: T }> {
    trail.length = 0;
    const response = await send();
    expect(response.status).toBe(status);
    // The response's close listeners run on the turn after its answer.
    await new Promise((resolve) => setImmediate(resolve));
    return { steps: [...trail], response };
  }

  /**
   * Nest's adapter adds its own hooks as it is built, before a spec can wrap
   * them: each request below shows the work of those that do any (CORS and
   * the security headers) on its answer instead.
   */
  const NEST_ADAPTER_HOOKS = [
    "Nest's onRequest lifecycle hook",
    "Nest's closing hook",
    "Nest's CORS hook",
    "Nest's security headers hook",
    "Nest's request target check",
    "Nest's versioning error hook",
    "Nest's onResponse lifecycle hook",
  ];
  /** Steps no request here meets: settings left off (OPS_PORT, a tracer), and routes' own hooks of other routes. */
  const NOT_MET = ['servePlacedOnPort', 'annotateServerSpanOnSend', 'writeDeprecationHeaders', 'serveOnlyDocsFiles'];

  /** The README's steps, less those a request of this kind does not meet. */
  const readmeStepsBut = (...absent: string[]) => {
    const steps = readmeSteps();
    for (const step of [...NEST_ADAPTER_HOOKS, ...NOT_MET, ...absent]) expect(steps).toContain(step);
    return steps.filter((step) => ![...NEST_ADAPTER_HOOKS, ...NOT_MET, ...absent].includes(step));
  };

  /** What Nest's CORS and security headers hooks write, which a handler of ours never does. */
  const expectNestAdapterHooksRan = (headers: Record<string, unknown>) =>
    expect(headers).toMatchObject({ 'access-control-allow-origin': ORIGIN, 'x-content-type-options': 'nosniff', 'content-security-policy': expect.any(String) });

  it('lists in the README each step a GET with a key passes, in the order it passes them', async () => {
    const { steps, response } = await stepsOf(() => testApp.client.get('/v1/pets', { Origin: ORIGIN }), 200);
    expect(steps).toEqual(readmeStepsBut('parseJsonBody', 'EntityTagInterceptor', 'IdempotencyInterceptor', 'AllExceptionsFilter'));
    expectNestAdapterHooksRan(response.headers);
  });

  it('lists in the README each step a keyed POST passes, in the order it passes them', async () => {
    const { steps, response } = await stepsOf(
      () => testApp.client.post('/v1/pets', { name: 'Rex', categoryId: 3 }, { 'idempotency-key': 'the-way-in', Origin: ORIGIN }),
      201,
    );
    expect(steps).toEqual(readmeStepsBut('ConditionalGetInterceptor', 'AllExceptionsFilter'));
    expectNestAdapterHooksRan(response.headers);
  });

  it('lists in the README the steps a refused request passes: the guards, then the filter', async () => {
    const { steps, response } = await stepsOf(() => testApp.anonymous.get('/v1/pets', { Origin: ORIGIN }), 401);
    expect(steps).toEqual(
      readmeStepsBut(
        'parseJsonBody',
        'ConditionalGetInterceptor',
        'EntityTagInterceptor',
        'IdempotencyInterceptor',
        'StrictValidationPipe',
        'The controller',
        "PlanThrottlerGuard's close listener",
      ),
    );
    expectNestAdapterHooksRan(response.headers);
  });

  it.each([
    ['a @Deprecated() route', '/v1/pets/{id}', 'writeDeprecationHeaders', 'serveOnlyDocsFiles'],
    ['a docs route', '/docs/openapi.json', 'serveOnlyDocsFiles', 'writeDeprecationHeaders'],
  ])("runs %s's own onRequest hook after the global ones, and no other route's", async (_route, url, own, other) => {
    const created = await testApp.client.post<{ id: number }>('/v1/pets', { name: 'Rex', categoryId: 3 });
    const { steps } = await stepsOf(() => testApp.client.get(url.replace('{id}', String(created.body.id))), 200);
    const untilBody = readmeSteps().slice(0, readmeSteps().indexOf('refuseMalformedHead') + 1);
    const expected = untilBody.filter((step) => ![...NEST_ADAPTER_HOOKS, 'servePlacedOnPort', other].includes(step));
    expect(expected).toContain(own);
    expect(steps.slice(0, expected.length)).toEqual(expected);
  });
});
