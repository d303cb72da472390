import type { FastifyError, FastifyReply, FastifyRequest, onRequestHookHandler, preParsingHookHandler } from 'fastify';
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
 * The answers to bytes Node's HTTP parser refuses (server option
 * `clientErrorHandler`). There is no request and no reply then, so the Error
 * body (built by toErrorBody like every other) is written to the socket as
 * Node's `clientError` documentation asks, and the connection closed, as
 * nothing after the broken bytes can be trusted. Complete requests pipelined
 * before the broken bytes are answered first, in order, as HTTP requires: the
 * request pipeline notes each request's response (trackResponseDue) so that
 * the 400 can follow them. One instance per server, made by the pipeline.
 */
export class ClientErrorAnswers {
  /** Node may call the handler again for the same socket, as bytes already read reach the failed parser. */
  private readonly answeredSockets = new WeakSet<Socket>();
  /** The responses each connection may still owe, in the order of their requests; finished ones are dropped as new ones come. */
  private readonly responsesDue = new WeakMap<object, ServerResponse[]>();

  /** An onRequest hook, first of all, so a response is known before the application can answer it. */
  readonly trackResponseDue: onRequestHookHandler = (request, reply, done) => {
    const socket = request.raw.socket;
    const due = this.responsesDue.get(socket);
    if (due === undefined) this.responsesDue.set(socket, [reply.raw]);
    else {
      while (due.length > 0 && due[0].writableFinished) due.shift();
      due.push(reply.raw);
    }
    done();
  };

  /** No answer where HTTP allows none: the peer is gone, the client timed out sending its request, or an answer has already started on the connection. */
  readonly answer = (error: ConnectionError, socket: Socket): void => {
    if (this.answeredSockets.has(socket)) return;
    this.answeredSockets.add(socket);
    if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      socket.destroy();
      return;
    }
    // Nothing after the broken bytes is read; what came before is answered.
    socket.pause();
    const refusal = error.code === 'HPE_HEADER_OVERFLOW' ? new RequestHeadersTooLargeError() : new MalformedRequestError('The request is malformed');
    this.answerAfterEarlierRequests(socket, rawResponse(toErrorBody(refusal)));
  };

  private answerAfterEarlierRequests(socket: Socket, response: string): void {
    const due = this.responsesDue.get(socket)?.find((pending) => !pending.writableFinished);
    if (due?.req.complete) {
      // An earlier request's answer, started or not: once its bytes are out, the next one's turn comes.
      due.once('finish', () => this.answerAfterEarlierRequests(socket, response));
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

const ONLY_CONTINUE = /^[ \t]*100-continue[ \t]*$/i;

/**
 * Node's server answers an `Expect` it does not take for `100-continue` with a
 * bare 417, and sends 100 Continue for any value that merely contains
 * `100-continue` (`100-continue-please`). With these listeners, which Node
 * documents for that purpose, `100-continue` alone (any case) gets its
 * 100 Continue, and every request goes on to Fastify's router, where
 * refuseMalformedHead answers any other expectation with the Error body.
 */
export function routeExpectations(server: Server, route: (request: IncomingMessage, response: ServerResponse) => void): void {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (ONLY_CONTINUE.test(request.headers.expect ?? '')) response.writeContinue();
    route(request, response);
  });
  server.on('checkExpectation', route);
}

/**
 * A request head the service refuses before reading a body: an HTTP/1.1
 * request without Host (Node's own check answers with an empty body, so it is
 * turned off with `requireHostHeader: false`), two Host headers (Node keeps the
 * first, so a proxy that reads the last would see another address than the
 * service), or an expectation other than `100-continue`.
 */
export const refuseMalformedHead: preParsingHookHandler = (request, reply, _payload, done) => {
  const refusal = headRefusalOf(request.raw);
  if (refusal === undefined) return done();
  // The client may be sending a body the service will not read: the connection's next bytes cannot be trusted.
  void reply.header('Connection', 'close');
  done(refusal, undefined);
};

function headRefusalOf({ headers, rawHeaders, httpVersion }: IncomingMessage): Error | undefined {
  if (headers.host === undefined) return httpVersion === '1.1' ? new MalformedRequestError('A Host header is required') : undefined;
  let hosts = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) if (rawHeaders[index].toLowerCase() === 'host') hosts++;
  if (hosts > 1) return new InvalidInputError('Only one Host header may be sent');
  // Node passes an expectation on only for HTTP/1.1, and ignores it otherwise.
  if (headers.expect !== undefined && httpVersion === '1.1' && !ONLY_CONTINUE.test(headers.expect)) return new ExpectationFailedError();
  return undefined;
}
