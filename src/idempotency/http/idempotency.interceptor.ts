import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';
import type { KeyCaller } from '../../http/caller';
import { callerOf } from '../../http/request-context';
import { BodyValidation } from '../../http/validation';
import { IdempotencyService } from '../application/idempotency.service';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '../domain/idempotency.errors';

/**
 * Runs an @Idempotent() route's handler at most once per (API key,
 * Idempotency-Key): the first request claims the key and runs the handler,
 * its pipes included, in a unit of work that also stores its answer; a retry
 * with the same body gets that answer again, marked `Idempotent-Replayed:
 * true`. Without the header the handler just runs.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly bodies: BodyValidation,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const key = context.switchToHttp().getRequest<FastifyRequest>().headers['idempotency-key'];
    if (typeof key !== 'string') return next.handle();
    return from(this.perform(context, next, key));
  }

  private async perform(context: ExecutionContext, next: CallHandler, key: string): Promise<unknown> {
    const http = context.switchToHttp();
    const [request, reply] = [http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>()];
    // A key caller: an @Idempotent() route is never @Public() (checked at start-up), so the access guard let only keys in.
    const { keyId } = callerOf(request) as KeyCaller;
    const run = async () => ({ body: await lastValueFrom(next.handle()), status: reply.statusCode });
    try {
      const outcome = await this.idempotency.perform({ apiKeyId: keyId, key, payload: request.body }, run);
      if (outcome.replayed) reply.header('idempotent-replayed', 'true').status(outcome.status);
      return outcome.body;
    } catch (error) {
      // The body is judged before what the key holds, as for a fresh key, whose pipes run before its handler.
      if (error instanceof IdempotencyKeyInUseError || error instanceof IdempotencyKeyReusedError) await this.bodies.check(context);
      throw error;
    }
  }
}
