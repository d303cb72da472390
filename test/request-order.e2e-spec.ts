import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AccessGuard } from '../src/auth/http/access.guard';
import { AllExceptionsFilter } from '../src/errors/all-exceptions.filter';
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

/** The steps one request passed, in order, a step met several times in a row (two onRequest hooks) named once. */
const trail: string[] = [];
const record = (step: string) => {
  if (trail.at(-1) !== step) trail.push(step);
};

/**
 * Records `step` whenever `target[method]` runs, then runs it. The function's
 * own metadata (a handler's route, its decorators) is copied to the spy, as Nest reads it there.
 */
function trace(target: object, method: string, step: string): void {
  const original = (target as Record<string, (...args: unknown[]) => unknown>)[method];
  const spy = jest.spyOn(target as Record<string, (...args: unknown[]) => unknown>, method).mockImplementation(function (this: unknown, ...args: unknown[]) {
    record(step);
    return original.apply(this, args);
  });
  for (const key of Reflect.getOwnMetadataKeys(original)) Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, original), spy);
}

const HOOK_STEPS: Record<string, string> = {
  onRequest: "Fastify's onRequest hooks",
  preParsing: "Fastify's preParsing hooks",
  preValidation: "Fastify's preValidation hooks",
  preHandler: "Fastify's preHandler hooks",
  preSerialization: "Fastify's preSerialization hooks",
  onSend: "Fastify's onSend hooks",
  onResponse: "Fastify's onResponse hooks",
  onError: "Fastify's onError hooks",
};

type Method = (this: unknown, ...args: unknown[]) => unknown;

/** A hook that records its step, then runs as it would. */
function traced(step: string, hook: Method): Method {
  return function (this: unknown, ...args: unknown[]) {
    record(step);
    return hook.apply(this, args);
  };
}

/**
 * Wraps every request hook and content-type parser the service adds to its
 * Fastify instance, from its creation on; each is added with the `this` it
 * was asked on, so a plugin's hooks stay in its own context.
 */
function traceFastify(fastify: FastifyInstance): void {
  const target = fastify as unknown as { addHook: Method; addContentTypeParser: Method };
  const { addHook, addContentTypeParser } = target;
  target.addHook = function (name, hook) {
    // A route's own hooks, which an onRoute hook may add, are traced once it has run.
    if (name === 'onRoute') {
      return addHook.call(this, name, function (this: unknown, route: Record<string, unknown>) {
        (hook as Method).call(this, route);
        for (const hookName of Object.keys(HOOK_STEPS)) {
          const own = route[hookName];
          if (own !== undefined) route[hookName] = (Array.isArray(own) ? own : [own]).map((ownHook: Method) => traced(HOOK_STEPS[hookName], ownHook));
        }
      });
    }
    const step = HOOK_STEPS[name as string];
    return addHook.call(this, name, step === undefined ? hook : traced(step, hook as Method));
  };
  target.addContentTypeParser = function (...args) {
    const parser = args.pop() as Method;
    // Three parameters, as the parser has: Fastify reads a parser of two as one that returns a promise.
    return addContentTypeParser.call(this, ...args, function (this: unknown, request: unknown, payload: unknown, done: unknown) {
      record("Fastify's content-type parser");
      return parser.call(this, request, payload, done);
    });
  };
}

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
    trace(PlanThrottlerGuard.prototype, 'canActivate', 'PlanThrottlerGuard');
    trace(AccessGuard.prototype, 'canActivate', 'AccessGuard');
    trace(ConditionalGetInterceptor.prototype, 'intercept', 'ConditionalGetInterceptor');
    trace(EntityTagInterceptor.prototype, 'intercept', 'EntityTagInterceptor');
    trace(IdempotencyInterceptor.prototype, 'intercept', 'IdempotencyInterceptor');
    trace(StrictValidationPipe.prototype, 'transform', 'StrictValidationPipe');
    trace(PetsController.prototype, 'listPets', 'The controller');
    trace(PetsController.prototype, 'createPet', 'The controller');
    trace(AllExceptionsFilter.prototype, 'catch', 'AllExceptionsFilter');
    testApp = await createTestApp();
  });
  afterAll(async () => {
    await testApp?.close();
    jest.restoreAllMocks();
  });

  /** The steps a request passes, recorded while it alone is in flight. */
  async function stepsOf(send: () => Promise<{ status: number }>, status: number): Promise<string[]> {
    trail.length = 0;
    expect((await send()).status).toBe(status);
    return [...trail];
  }

  /** The README's steps, less those a request of this kind does not meet. */
  const readmeStepsBut = (...absent: string[]) => {
    const steps = readmeSteps();
    for (const step of absent) expect(steps).toContain(step);
    return steps.filter((step) => !absent.includes(step));
  };

  it('lists in the README each step a GET with a key passes, in the order it passes them', async () => {
    const steps = await stepsOf(() => testApp.client.get('/v1/pets'), 200);
    expect(steps).toEqual(readmeStepsBut("Fastify's content-type parser", 'EntityTagInterceptor', 'IdempotencyInterceptor', 'AllExceptionsFilter'));
  });

  it('lists in the README each step a keyed POST passes, in the order it passes them', async () => {
    const steps = await stepsOf(() => testApp.client.post('/v1/pets', { name: 'Rex', categoryId: 3 }, { 'idempotency-key': 'the-way-in' }), 201);
    expect(steps).toEqual(readmeStepsBut('ConditionalGetInterceptor', 'AllExceptionsFilter'));
  });

  it('lists in the README the steps a refused request passes: the guards, then the filter', async () => {
    const steps = await stepsOf(() => testApp.anonymous.get('/v1/pets'), 401);
    expect(steps).toEqual(
      readmeStepsBut(
        "Fastify's content-type parser",
        'ConditionalGetInterceptor',
        'EntityTagInterceptor',
        'IdempotencyInterceptor',
        'StrictValidationPipe',
        'The controller',
      ),
    );
  });
});
