import { trace } from '@opentelemetry/api';
import type { FastifyRequest, onSendHookHandler } from 'fastify';

/** Attributes of ours on a request's server span, beside the HTTP instrumentation's own. */
export const SPAN_ATTRIBUTES = {
  requestId: 'animal_store.request_id',
  apiKeyId: 'animal_store.api_key_id',
} as const;

/** The caller's key id, once the guards looked the caller up (a request refused before them has none). */
function keyIdOf(request: FastifyRequest): number | undefined {
  const caller = request.state?.caller;
  return caller?.kind === 'key' ? caller.keyId : undefined;
}

/**
 * Names the request's server span by its route template (`GET /v1/pets/:petId`,
 * as OpenTelemetry's HTTP conventions ask) and marks it with the request id
 * and the caller's key id, never the key.
 */
export function annotateServerSpan(request: FastifyRequest): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  const route = request.routeOptions.url;
  if (route !== undefined) span.updateName(`${request.method} ${route}`).setAttribute('http.route', route);
  span.setAttribute(SPAN_ATTRIBUTES.requestId, request.id);
  const keyId = keyIdOf(request);
  if (keyId !== undefined) span.setAttribute(SPAN_ATTRIBUTES.apiKeyId, keyId);
}

/**
 * An onSend hook, given only with a tracer: it annotates as the response is
 * about to be sent, as the HTTP instrumentation ends the span when the
 * response closes, and by then the caller is known.
 */
export const annotateServerSpanOnSend: onSendHookHandler = function annotateServerSpanOnSend(request, _reply, payload, done) {
  annotateServerSpan(request);
  done(null, payload);
};
