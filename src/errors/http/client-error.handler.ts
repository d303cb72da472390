import type { FastifyError, FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import { IncomingMessage, Server, ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { sendError, toErrorBody } from './all-exceptions.filter';
import { InvalidInputError } from '../domain/domain-error';
import { ErrorBody } from './error-statuses';
import { ExpectationFailedError, MalformedRequestError, RequestHeadersTooLargeError, UriTooLongError } from './request-errors';

interface ConnectionError extends Error {
  code?: string;
}

/**
 * Node's HTTP parser refused the bytes (server option `clientErrorHandler`):
 * there is no request and no reply, so the Error body (built by toErrorBody
 * like every other) is written to the socket as raw HTTP and the connection
 * closed, as nothing after the broken bytes can be trusted. Complete requests
 * pipelined before the broken bytes are answered first, in order, as HTTP
 * requires; the 400 follows their answers (see trackResponsesDue). No answer
 * where HTTP allows none: the peer is gone, the client timed out sending its
 * request, or an answer has already started on the connection.
 */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  if (answeredSockets.has(socket)) return;
  answeredSockets.add(socket);
  if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.destroy();
    return;
  }
  // Nothing after the broken bytes is read; what came before is answered.
  socket.pause();
  const refusal = error.code === 'HPE_HEADER_OVERFLOW' ? new RequestHeadersTooLargeError() : new MalformedRequestError('The request is malformed');
  answerAfterEarlierRequests(socket, rawResponse(toErrorBody(refusal)));
}

/** Node may call the handler again for the same socket, as bytes already read reach the failed parser. */
const answeredSockets = new WeakSet<Socket>();

/** The responses each connection still owes, in the order of their requests. */
const responsesDue = new WeakMap<Socket, ServerResponse[]>();

/**
 * Keeps, for each connection, the responses that have not finished yet, so
 * that answerClientError knows which answers the broken bytes must wait for.
 * Prepended, so a response is known before the application can answer it.
 */
export function trackResponsesDue(server: Server): void {
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    let due = responsesDue.get(request.socket);
    if (!due) responsesDue.set(request.socket, (due = []));
    due.push(response);
    // A response closes once it has finished or its connection is gone, whichever comes first.
    response.once('close', () => {
      const at = due.indexOf(response);
      if (at >= 0) due.splice(at, 1);
    });
  });
}

function answerAfterEarlierRequests(socket: Socket, response: string): void {
  const due = responsesDue.get(socket)?.find((pending) => !pending.writableFinished);
  if (due?.req.complete) {
    // An earlier request's answer, started or not: once its bytes are out, the next one's turn comes.
    due.once('finish', () => answerAfterEarlierRequests(socket, response));
    due.once('close', () => due.writableFinished || socket.destroy());
    return;
  }
  // Else the broken bytes are the due request's own, whose answer can only be this one if it has not begun.
  if (!socket.writable || due?.headersSent) {
    socket.destroy();
    return;
  }
  // Ended rather than destroyed, so the bytes of the answers before it leave too.
  socket.end(response, () => socket.destroy());
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
 * Node's server answers an `Expect` it does not take for `100-continue` with a
 * bare 417, and takes for `100-continue` any value that merely contains it
 * (`100-continue-please`, `100-continue, x`). With these listeners the service
 * decides instead: `100-continue` alone (any case) gets its 100 Continue, and
 * every other value is marked and handed to Fastify like any other request,
 * where `refuseUnmetExpectation` answers it with the Error body.
 */
export function routeExpectations(server: Server): void {
  const handOn = (request: IncomingMessage, response: ServerResponse) => server.emit('request', request, response);
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (ONLY_CONTINUE.test(request.headers.expect ?? '')) response.writeContinue();
    else unmetExpectations.add(request);
    handOn(request, response);
  });
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    unmetExpectations.add(request);
    handOn(request, response);
  });
}

const ONLY_CONTINUE = /^[ \t]*100-continue[ \t]*$/i;
const unmetExpectations = new WeakSet<IncomingMessage>();

/** After the request hooks, so the 417 carries the security headers and request id like any other answer. */
export const refuseUnmetExpectation: preParsingHookHandler = (request, reply, _payload, done) => {
  if (!unmetExpectations.has(request.raw)) return done();
  // The client may be holding its body back for an answer, or sending it: the connection's next bytes cannot be trusted.
  void reply.header('Connection', 'close');
  done(new ExpectationFailedError(), undefined);
};

/**
 * HTTP/1.1 requires a Host header. Node's own check answers with an empty body,
 * so it is turned off (`requireHostHeader: false`) and done here instead.
 */
export const refuseRequestWithoutHost: preParsingHookHandler = (request, reply, _payload, done) => {
  if (request.raw.httpVersion !== '1.1' || request.headers.host !== undefined) return done();
  void reply.header('Connection', 'close');
  done(new MalformedRequestError('A Host header is required'), undefined);
};

/**
 * Node keeps the first of two Host headers and drops the other, so a proxy
 * that reads the last one would see another address than the service: such a
 * request is refused rather than guessed at.
 */
export const refuseRepeatedHost: preParsingHookHandler = (request, reply, _payload, done) => {
  const { rawHeaders } = request.raw;
  let hosts = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) if (rawHeaders[index].toLowerCase() === 'host') hosts++;
  if (hosts < 2) return done();
  void reply.header('Connection', 'close');
  done(new InvalidInputError('Only one Host header may be sent'), undefined);
};
