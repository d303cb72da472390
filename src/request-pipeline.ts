import underPressure from '@fastify/under-pressure';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, onRequestHookHandler, RouteOptions } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Logger as PinoInstance } from 'pino';
import { AccessGuard } from './auth/http/access.guard';
import { AppConfig } from './config/app-config';
import { isDocsRoute, serveOnlyDocsFiles } from './docs/api-docs';
import { AllExceptionsFilter } from './errors/http/all-exceptions.filter';
import { answerFrameworkError, ClientErrorAnswers, refuseMalformedHead, routeExpectations } from './errors/http/client-error.handler';
import { MAX_PARAM_LENGTH } from './errors/http/request-errors';
import { deprecationHeadersHook, isDeprecatedRoute } from './http/deprecation';
import { registerJsonBodyParser } from './http/json-body';
import { markPrivateAnswer } from './http/private-answers';
import { REQUEST_STATE_FIELD } from './http/request-context';
import { StrictValidationPipe } from './http/validation';
import { ROOT_LOGGER } from './ops/logging';
import { OpsMetrics } from './ops/metrics';
import { serveOperationsPort } from './ops/ops-port';
import { underPressureOptions } from './ops/overload';
import { RequestDrain } from './ops/request-drain';
import { admitRequestHook, recordAnswerHook, stopAdmittingHook } from './ops/request-hooks';
import { requestIdFor } from './ops/request-id';
import { corsOptionsFor, SECURITY_HEADERS } from './ops/security';
import { annotateServerSpanOnSend } from './ops/server-span';
import { PlanThrottlerGuard } from './rate-limit/http/plan-throttler.guard';
import { UnmatchedRouteCharges } from './rate-limit/http/unmatched-route-charges';
import { UsageRecorder } from './usage/application/usage-recorder';

/*
 * The way of a request, registered in the order it runs. The README's "The
 * way of a request" lists the same steps, and test/request-order.e2e-spec.ts
 * holds a GET, a keyed POST and a refused request to that list. Other files
 * export each step; only this one wires them (docs/adr/0056).
 */

/** How often, at most, the server looks for connections past HEADERS_TIMEOUT_MS or REQUEST_TIMEOUT_MS. */
const EXPIRY_CHECK_MS = 1_000;

/**
 * The server, and what happens before Fastify's router: bytes Node's parser
 * refuses, an `Expect` header, the request id, a URL the router refuses. Body
 * limit, proxy trust and the bounds on slow clients come from configuration.
 */
export function createFastifyAdapter(config: AppConfig): FastifyAdapter {
  const clientErrors = new ClientErrorAnswers();
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy && [...config.trustProxy],
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Bytes that are no HTTP request get the Error body, after the answers of the requests before them.
    clientErrorHandler: clientErrors.answer,
    genReqId: (request: IncomingMessage) => requestIdFor(request.headers['x-request-id']),
    // A URL the router cannot take (a path parameter over the limit, a broken percent-encoding) gets the Error body.
    frameworkErrors: answerFrameworkError,
    // Requests arriving while the server drains get the Error body from admitRequest instead.
    return503OnClosing: false,
    // Hooks do what middleware would, so @fastify/middie is left out and a module calling consumer.apply() fails at start-up.
    skipMiddie: true,
    // Node alone holds a slow client for a minute or more, and Fastify turns the request bound off: these close it sooner.
    requestTimeout: config.requestTimeoutMs,
    http: {
      // Checked by refuseMalformedHead, which answers with the Error body.
      requireHostHeader: false,
      headersTimeout: config.headersTimeoutMs,
      // Node looks for expired requests every 30 s by default, which would hold a slow client long past its bound.
      connectionsCheckingInterval: Math.min(EXPIRY_CHECK_MS, config.headersTimeoutMs),
    },
  });
  const fastify = adapter.getInstance();
  routeExpectations(fastify.server, (request, response) => fastify.routing(request, response));
  // First of all, so the answer to broken bytes knows every response its connection still owes.
  fastify.addHook('onRequest', clientErrors.trackResponseDue);
  return adapter;
}

/**
 * Every step after the router, in order: Fastify's hooks, Nest's guards,
 * pipe and filter, and what runs once the answer is sent. main.ts and the
 * end-to-end specs both call it, before the app's routes are added.
 */
export function configureRequestPipeline(app: NestFastifyApplication): void {
  const fastify: FastifyInstance = app.getHttpAdapter().getInstance();
  const config = app.get(AppConfig);
  const drain = app.get(RequestDrain);
  // The one typed place for what the steps learn about a request, declared empty on every request.
  fastify.decorateRequest(REQUEST_STATE_FIELD, null);

  // onRequest, every request. Nest's adapter runs its own hooks first, before trackResponseDue: the 503 while
  // closing (off, see return503OnClosing), CORS and the security headers, both turned on here.
  const cors = corsOptionsFor(config.corsOrigins);
  if (cors) app.enableCors(cors);
  app.useSecurityHeaders(SECURITY_HEADERS);
  fastify.addHook('onRequest', admitRequestHook(drain));
  fastify.addHook('preClose', stopAdmittingHook(drain));
  const servePlacedOnPort = serveOperationsPort(fastify, config);
  if (servePlacedOnPort) fastify.addHook('onRequest', servePlacedOnPort);
  if (config.maxEventLoopDelayMs > 0) void fastify.register(underPressure, underPressureOptions(config.maxEventLoopDelayMs));
  fastify.addHook('onRequest', markPrivateAnswer);
  // onRequest, chosen routes only: after the global ones, and other routes pay nothing for them.
  addRouteOnRequestHook(fastify, isDeprecatedRoute, deprecationHeadersHook(config));
  addRouteOnRequestHook(fastify, isDocsRoute, serveOnlyDocsFiles);

  // preParsing, then the body: JSON (a merge patch too) up to the body limit.
  fastify.addHook('preParsing', refuseMalformedHead);
  registerJsonBodyParser(fastify);

  // preHandler: a /v1 request no route matched is charged, as the guards charge every other.
  fastify.addHook('preHandler', app.get(UnmatchedRouteCharges).chargeUnmatchedRoute);

  // Nest: the guards, in order, for every route; then the route's interceptors, which its decorators choose
  // (@ConditionalGet(), @TaggedEntity(), @Idempotent()); the pipe; the handler; and the filter for any error.
  app.useGlobalGuards(app.get(PlanThrottlerGuard), app.get(AccessGuard));
  app.useGlobalPipes(app.get(StrictValidationPipe));
  app.useGlobalFilters(app.get(AllExceptionsFilter));

  // As the answer leaves: the span's annotations (with a tracer alone), then the log line, metrics and usage.
  // Once the response closes, admitRequest's listener and then PlanThrottlerGuard's give their places back.
  if (config.tracing) fastify.addHook('onSend', annotateServerSpanOnSend);
  fastify.addHook(
    'onResponse',
    recordAnswerHook({ rootLogger: app.get<symbol, PinoInstance>(ROOT_LOGGER), metrics: app.get(OpsMetrics), usage: app.get(UsageRecorder) }),
  );
}

/** Gives each route `applies` picks, as it is added, `hook` as its own last onRequest hook. */
function addRouteOnRequestHook(fastify: FastifyInstance, applies: (route: RouteOptions) => boolean, hook: onRequestHookHandler): void {
  fastify.addHook('onRoute', (route) => {
    if (!applies(route)) return;
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [...own, hook];
  });
}
