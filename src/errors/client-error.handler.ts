import type { FastifyError, FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import { ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { sendError, toErrorBody } from './all-exceptions.filter';
import { ErrorBody } from './error-code';
import { MalformedRequestError, RequestHeadersTooLargeError, UriTooLongError } from './request-errors';

interface ConnectionError extends Error {
  code?: string;
}

/** Node's server keeps the response it is due next on the socket; its own handler reads the same field. */
interface HttpSocket extends Socket {
  _httpMessage?: ServerResponse | null;
}

/**
 * Node's HTTP parser refused the bytes (server option `clientErrorHandler`):
 * there is no request and no reply, so the Error body (built by toErrorBody
 * like every other) is written to the socket as raw HTTP and
 * the connection closed, as nothing after the broken bytes can be trusted.
 * No answer where HTTP allows none: the peer is gone, the client timed out
 * sending its request, or the response due next belongs to an earlier, complete
 * request (the client would read the answer as that request's).
 */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  const silent = error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  if (!silent && socket.writable && isDueToBrokenRequest((socket as HttpSocket)._httpMessage)) {
    const refusal = error.code === 'HPE_HEADER_OVERFLOW' ? new RequestHeadersTooLargeError() : new MalformedRequestError('The request is malformed');
    socket.write(rawResponse(toErrorBody(refusal)));
  }
  socket.destroy();
}

/** The next response is the broken request's own when none is due yet, or it is due to a request whose body never completed. */
function isDueToBrokenRequest(due: ServerResponse | null | undefined): boolean {
  return !due || (!due.headersSent && !due.req.complete);
}

function rawResponse(body: ErrorBody): string {
  const json = JSON.stringify(body);
  return [
    `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(json)}`,
    'Connection: close',
    '',
    json,
  ].join('\r\n');
}

/**
 * Fastify refused the URL before routing (server option `frameworkErrors`): a
 * path parameter over the router's limit, or a percent-encoding that does not
 * decode. There is no route, so no Nest filter: the same writer answers it.
 */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const refusal =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? new UriTooLongError() : error.code === 'FST_ERR_BAD_URL' ? new MalformedRequestError('The request is malformed') : error;
  sendError(reply, refusal);
}

/**
 * HTTP/1.1 requires a Host header. Node's own check answers with an empty body,
 * so it is turned off (`requireHostHeader: false`) and done here instead.
 */
export const refuseRequestWithoutHost: preParsingHookHandler = (request, reply, _payload, done) => {
  if (request.raw.httpVersion !== '1.1' || request.headers.host !== undefined) return done();
  void reply.header('connection', 'close');
  done(new MalformedRequestError('A Host header is required'), undefined);
};
