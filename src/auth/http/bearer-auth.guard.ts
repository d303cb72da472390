import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { isApiRequest } from '../../http/api-route';
import { replyOf, requestOf } from '../../http/http-context';
import { ApiKey } from '../domain/api-key';
import { UnauthorizedError } from '../domain/api-key.errors';
import { CallerResolver } from './caller-resolver';

export const WWW_AUTHENTICATE = 'Bearer realm="animal-store"';

/**
 * Every `/v1` operation needs an active API key; the 401 never says why one was refused.
 * A key already verified is answered at once, so Nest awaits nothing for it.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(private readonly callers: CallerResolver) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const request = requestOf(context);
    if (!isApiRequest(request)) return true;
    const caller = this.callers.resolve(request);
    return caller instanceof Promise ? caller.then((key) => this.admit(key, context)) : this.admit(caller, context);
  }

  private admit(key: ApiKey | null, context: ExecutionContext): boolean {
    if (key) return true;
    replyOf(context).header('WWW-Authenticate', WWW_AUTHENTICATE);
    throw new UnauthorizedError();
  }
}
