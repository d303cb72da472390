import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { createServer, IncomingMessage } from 'node:http';
import type { AppConfig } from '../config/app-config';
import { RouteNotFoundError } from '../errors/http/request-errors';

/** Where a route answers once OPS_PORT is set: `only` there (metrics, readiness), or on both ports (liveness, which the image's health check asks on the public port). */
export type OpsPortPlacement = 'only' | 'also';

/** Route config (`@RouteConfig(...)`) that places a route on the operators' port. */
export interface OpsPortRouteConfig {
  readonly opsPort?: OpsPortPlacement;
}

/**
 * With OPS_PORT set, a second listener that operators keep off the public
 * network serves the routes placed there, through the same Fastify instance
 * (its hooks, logs and metrics), and the public port answers 404 for those
 * placed there `only`: the onRequest hook returned, which the request
 * pipeline registers. Unset, every route stays on the public port, and there
 * is no hook.
 */
export function serveOperationsPort(fastify: FastifyInstance, config: Pick<AppConfig, 'opsPort' | 'host'>): onRequestHookHandler | undefined {
  const { opsPort } = config;
  if (opsPort === undefined) return undefined;
  const viaOpsPort = new WeakSet<IncomingMessage>();
  const server = createServer((request, response) => {
    viaOpsPort.add(request);
    fastify.routing(request, response);
  });
  // On ready rather than on listen: the specs, which inject without listening, reach the port too.
  fastify.addHook('onReady', async () => {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(opsPort, config.host, resolve));
  });
  fastify.addHook('onClose', (_instance, done) => {
    server.close(() => done());
    server.closeAllConnections();
  });
  return function servePlacedOnPort(request, _reply, done) {
    const placement = (request.routeOptions.config as OpsPortRouteConfig).opsPort;
    const served = viaOpsPort.has(request.raw) ? placement !== undefined : placement !== 'only';
    done(served ? undefined : new RouteNotFoundError());
  };
}
