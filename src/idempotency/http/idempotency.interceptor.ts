import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, lastValueFrom, map, Observable } from 'rxjs';
import { callerOf } from '../../http/request-context';
import { IdempotencyService } from '../application/idempotency.service';

/**
 * Runs an @Idempotent() route's handler at most once per (API key,
 * Idempotency-Key): the handler's answer, with the status the route set, is
 * what a retry with the same key and body gets again, marked
 * `Idempotent-Replayed: true`. Without the header the handler just runs.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly idempotency: IdempotencyService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string') return next.handle();
    const caller = callerOf(request);
    if (caller.kind !== 'key') throw new Error('@Idempotent() needs a route that requires an API key: the key scopes the Idempotency-Key');
    const reply = http.getResponse<FastifyReply>();
    const handle = async () => {
      const body = await lastValueFrom(next.handle());
      return { status: reply.statusCode, body };
    };
    return from(this.idempotency.perform({ apiKeyId: caller.keyId, key, payload: request.body }, handle)).pipe(
      map((outcome) => {
        if (outcome.replayed) reply.header('idempotent-replayed', 'true').status(outcome.status);
        return outcome.body;
      }),
    );
  }
}
