import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';
import type { KeyCaller } from '../../callers/caller';
import { RefusedBody } from '../../http/json-body';
import { callerOf } from '../../http/request-context';
import { IdempotencyService } from '../application/idempotency.service';

/**
 * Runs an @Idempotent() route's handler at most once per (API key,
 * Idempotency-Key). It runs before the pipes: a key already known is answered
 * from what it holds (the stored answer, marked `Idempotent-Replayed: true`;
 * 409 while its first request runs; 422 for another body), without
 * validating the body again, as the stored one was valid. A fresh key is
 * claimed, and the rest of the request, the validation pipe included, runs
 * in the unit of work that stores its answer; a refusal there leaves the key
 * unused. Without the header, or with a body that could not be read (which
 * the pipe refuses), the route just runs.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly idempotency: IdempotencyService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string' || request.body instanceof RefusedBody) return next.handle();
    return from(this.perform(context, next, key));
  }

  private async perform(context: ExecutionContext, next: CallHandler, key: string): Promise<unknown> {
    const http = context.switchToHttp();
    const [request, reply] = [http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>()];
    // A key caller: an @Idempotent() route is never @Public() (checked at start-up), so the access guard let only keys in.
    const { keyId } = callerOf(request) as KeyCaller;
    const run = async () => {
      const body = await lastValueFrom(next.handle());
      const location = reply.getHeader('Location');
      return { body, status: reply.statusCode, location: typeof location === 'string' ? location : undefined };
    };
    const operation = `${request.method} ${request.routeOptions.url}`;
    const outcome = await this.idempotency.perform({ apiKeyId: keyId, key, operation, payload: request.body }, run);
    if (outcome.replayed) {
      reply.header('Idempotent-Replayed', 'true').status(outcome.status);
      if (outcome.location !== undefined) reply.header('Location', outcome.location);
    }
    return outcome.body;
  }
}
