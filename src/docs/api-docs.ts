import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, ReferenceObject, ResponseObject, ResponsesObject, SchemaObject, SwaggerModule } from '@nestjs/swagger';
import type { onRequestHookHandler } from 'fastify';
import { AppConfig } from '../config/app-config';
import { RouteNotFoundError } from '../errors/http/request-errors';
import { takeRouteDocs } from '../http/route-docs';
import { ETAG_HEADER_COMPONENT, inputErrorResponses, RATE_LIMIT_HEADER_COMPONENTS, RATE_LIMIT_HEADERS } from './api-standard-responses';

/** The interface version (the specification's), not the package's. */
export const API_VERSION = '1.0.0';

/** The servers' URLs end in /v1, so the document's paths are relative to it. */
const VERSION_PREFIX = '/v1';

export const DOCS_PATH = 'docs';
export const OPENAPI_JSON_PATH = `${DOCS_PATH}/openapi.json`;

/** The OpenAPI document of the /v1 operations, built from the controllers' decorators. */
export function createOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const base = new DocumentBuilder()
    .setTitle('animal-store')
    .setDescription(
      "A store's catalogue of animals for sale. Every operation needs an API key sent as a bearer token, " +
        'every response carries the rate-limit headers, `Cache-Control: private` and `Vary: Authorization`, and every error has the Error body. ' +
        "Absolute links start with the server of the environment that answers, never with the request's `Host`. " +
        'A 503 may come from a service that is draining or overloaded, before the operation is reached: it carries `Retry-After`, ' +
        'and neither the rate-limit headers nor the deprecation headers. ' +
        'Requests refused before they reach an operation get the Error body without the rate-limit headers: ' +
        'malformed HTTP framing, a missing Host header or a broken percent-encoding (`bad_request`, 400), two Host headers (`validation_failed`, 400), ' +
        'a path parameter over the length limit (`uri_too_long`, 414), headers over the size limit ' +
        '(`request_header_fields_too_large`, 431); after broken framing the connection is closed. ' +
        'Requests pipelined on one connection are answered in order, each in full: a malformed request behind complete ones ' +
        'gets its 400 after their answers. An HTTP/1.1 request whose `Expect` is anything but `100-continue` is answered ' +
        '417 (`expectation_failed`) and its connection closed; `Expect: 100-continue` gets `100 Continue` before the body is sent.',
    )
    .setVersion(API_VERSION)
    .addServer(config.publicBaseUrl, 'Production')
    .addServer(config.stagingBaseUrl, 'Staging')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'API key',
      description: 'An API key sent as `Authorization: Bearer <key>`',
    })
    .addTag('pets', 'The catalogue of animals')
    .addTag('rate limits', "The caller's quota")
    .addTag('store', "The account's orders of pets")
    .addTag('usage', "The caller's account's answers per day, key and outcome")
    .build();
  // No contact is published for this service; the builder's empty placeholder says nothing.
  delete base.info.contact;
  base.components = { ...base.components, headers: { ...RATE_LIMIT_HEADER_COMPONENTS, ...ETAG_HEADER_COMPONENT } };
  const document = SwaggerModule.createDocument(app, base);
  document.paths = relativeToServers(document.paths);
  completeResponses(document);
  closeSchemas(document);
  return document;
}

/**
 * Keeps the versioned operations, their paths relative to the servers' `/v1`.
 * Operational routes outside /v1 (health, metrics, these docs) are not part of the interface.
 */
function relativeToServers(paths: OpenAPIObject['paths']): OpenAPIObject['paths'] {
  return Object.fromEntries(
    Object.entries(paths)
      .filter(([path]) => path.startsWith(`${VERSION_PREFIX}/`))
      .map(([path, item]) => [path.slice(VERSION_PREFIX.length), item]),
  );
}

/**
 * Every response of an operation but its 503 (see above) carries the rate-limit headers, and what its
 * route decorators documented (http/route-docs.ts): headers on its successful
 * answers (2xx and 304), headers on all of them, and the deprecated mark.
 */
function completeResponses(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const operation of [item.get, item.put, item.post, item.patch, item.delete]) {
      if (!operation) continue;
      operation.responses = byStatus({ ...operation.responses, ...inputErrorResponses(operation) });
      const docs = takeRouteDocs(operation);
      if (docs.some(({ deprecated }) => deprecated)) operation.deprecated = true;
      const successHeaders = Object.assign({}, ...docs.map(({ successHeaders }) => successHeaders));
      const everyResponseHeaders = Object.assign({}, ...docs.map(({ everyResponseHeaders }) => everyResponseHeaders));
      for (const [status, response] of Object.entries(operation.responses) as Array<[string, ResponseObject]>) {
        const successful = status.startsWith('2') || status === '304';
        // A 503 may be the refusal of a draining or overloaded service, made before the route's own steps.
        const reached = status !== '503';
        response.headers = { ...response.headers, ...(successful ? successHeaders : {}), ...(reached ? { ...everyResponseHeaders, ...RATE_LIMIT_HEADERS } : {}) };
      }
    }
  }
}

/** Responses in the order of their status codes, as a reader looks them up. */
function byStatus(responses: ResponsesObject): ResponsesObject {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Objects that carry no other field: request bodies (the validation pipe
 * refuses unknown fields) and the Error body (exactly code, message, status).
 */
function closeSchemas(document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  const bodies = Object.values(document.paths)
    .flatMap((item) => [item.get, item.put, item.post, item.patch, item.delete])
    .map((operation) => (operation?.requestBody as { content?: Record<string, { schema?: ReferenceObject }> } | undefined)?.content)
    .flatMap((content) => Object.values(content ?? {}))
    .map(({ schema }) => schema?.$ref?.replace('#/components/schemas/', ''));
  for (const name of ['Error', ...bodies]) {
    const schema = name ? (schemas[name] as SchemaObject | undefined) : undefined;
    if (schema) schema.additionalProperties = false;
  }
}

/** The committed openapi.json's formatting, so that a regenerated file diffs cleanly. */
export function serializeOpenApiDocument(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * What the page at /docs (or /docs/) loads, and the document: the rest of the
 * Swagger UI package (its package.json, README, source maps) is no one's business.
 */
const DOCS_FILES = new Set([
  '',
  'index.html',
  'openapi.json',
  'swagger-ui-init.js',
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
]);

/** The page's other address: @nestjs/swagger serves it there with its files named relative to /docs/docs/, where none is served. */
const INDEX_PATH = `/${DOCS_PATH}/index.html`;

/** Whether a route serves the docs page or its files, so that it, and no other, gets serveOnlyDocsFiles. */
export function isDocsRoute(route: { readonly url: string }): boolean {
  return route.url === `/${DOCS_PATH}` || route.url.startsWith(`/${DOCS_PATH}/`);
}

/**
 * The docs routes' own onRequest hook: the page's other address is sent to
 * the page's own (relative, so a proxy's path prefix is kept), whose file
 * paths resolve under /docs/, and a file the page does not load is not found.
 */
export const serveOnlyDocsFiles: onRequestHookHandler = function serveOnlyDocsFiles(request, reply, done) {
  const path = request.url.split('?')[0];
  if (path === INDEX_PATH) {
    void reply.redirect('./', 301);
    return;
  }
  const prefix = `/${DOCS_PATH}/`;
  done(path.startsWith(prefix) && !DOCS_FILES.has(path.slice(prefix.length)) ? new RouteNotFoundError() : undefined);
};

/** `GET /docs` (Swagger UI, served from the package's own files) and `GET /docs/openapi.json`. */
export function setupApiDocs(app: INestApplication): void {
  const document = createOpenApiDocument(app, app.get(AppConfig));
  SwaggerModule.setup(DOCS_PATH, app, document, {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    raw: ['json'],
    customSiteTitle: 'animal-store API',
    swaggerOptions: { displayOperationId: true },
  });
}
