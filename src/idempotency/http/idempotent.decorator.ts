import { createParamDecorator, type ExecutionContext, Injectable, type PipeTransform } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../../http/request-context';
import { IdempotencyService } from '../application/idempotency.service';
import { IDEMPOTENCY_KEY_HEADER } from '../domain/idempotency-key';

/** A route handler, which may answer its result or a promise of it. */
type Handler = (...args: unknown[]) => unknown;

/** One request to an @Idempotent() route, able to run the route's handler at most once per (API key, Idempotency-Key). */
export class IdempotentCall {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {}

  /**
   * The handler's answer, with the status the route set, is what a retry with
   * the same key and body gets again, marked `Idempotent-Replayed: true`.
   * Without the header the handler just runs.
   */
  async perform(handle: () => unknown): Promise<unknown> {
    const key = this.request.headers['idempotency-key'];
    if (typeof key !== 'string') return handle();
    const caller = callerOf(this.request);
    if (caller.kind !== 'key') throw new Error('@Idempotent() needs a route that requires an API key: the key scopes the Idempotency-Key');
    const operation = async () => {
      const body = await handle();
      return { status: this.reply.statusCode, body };
    };
    const outcome = await this.idempotency.perform({ apiKeyId: caller.keyId, key, payload: this.request.body }, operation);
    if (outcome.replayed) this.reply.header('idempotent-replayed', 'true').status(outcome.status);
    return outcome.body;
  }
}

/** Turns the request into its IdempotentCall; a pipe, so that Nest injects the service in the route's module. */
@Injectable()
export class IdempotentCallPipe implements PipeTransform<ExecutionContext, IdempotentCall> {
  constructor(private readonly idempotency: IdempotencyService) {}

  transform(context: ExecutionContext): IdempotentCall {
    const http = context.switchToHttp();
    return new IdempotentCall(this.idempotency, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}

const IdempotentCallParam = createParamDecorator((_data: unknown, context: ExecutionContext) => context);

/**
 * Makes a create-like route safe to retry: with an `Idempotency-Key`, a retry
 * with the same key and body gets the first answer instead of acting again.
 * The handler is wrapped where it is declared, after the guards and pipes have
 * run, and receives its IdempotentCall as one parameter more than it declares;
 * it is not a Nest interceptor, which costs every create (docs/adr/0018).
 * The route's module imports IdempotencyModule; its responses 409 and 422 are
 * declared with the route's other responses.
 */
export const Idempotent = (): MethodDecorator => (target, key, descriptor) => {
  const handler = descriptor.value as unknown as Handler;
  const declared = (Reflect.getMetadata('design:paramtypes', target, key) as unknown[] | undefined)?.length ?? handler.length;
  IdempotentCallParam(IdempotentCallPipe)(target, key, declared);
  const wrapped: Handler = function (this: unknown, ...args: unknown[]) {
    return (args[declared] as IdempotentCall).perform(() => handler.apply(this, args));
  };
  // What the decorators below this one recorded on the handler stays on the route.
  for (const metadataKey of Reflect.getOwnMetadataKeys(handler)) {
    Reflect.defineMetadata(metadataKey, Reflect.getOwnMetadata(metadataKey, handler), wrapped);
  }
  Object.defineProperty(wrapped, 'name', { value: handler.name });
  (descriptor as TypedPropertyDescriptor<unknown>).value = wrapped;
  ApiHeader({
    name: IDEMPOTENCY_KEY_HEADER,
    required: false,
    description: 'Makes the create safe to retry; scoped to the API key. 1 to 255 printable ASCII characters, e.g. a UUID.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  })(target, key, descriptor);
  return descriptor;
};
