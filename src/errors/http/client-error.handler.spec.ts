import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { ClientErrorAnswers } from './client-error.handler';

/** A response the server owes: the request it answers, and whether its head has gone out. */
class DueResponse extends EventEmitter {
  writableFinished = false;

  constructor(
    readonly req: { complete: boolean; socket: unknown },
    readonly headersSent = false,
  ) {
    super();
  }

  finish(): void {
    this.writableFinished = true;
    this.emit('finish');
    this.emit('close');
  }
}

/** A connection whose responses the pipeline's first hook noted, and the requests it has had so far, in order. */
function connection(...requests: Array<{ complete: boolean; headersSent?: boolean }>) {
  const answers = new ClientErrorAnswers();
  const written: string[] = [];
  const socket = {
    writable: true,
    pause: jest.fn(),
    end: jest.fn((text: string, done: () => void) => {
      written.push(text);
      done();
    }),
    destroy: jest.fn(),
  };
  const due = requests.map(({ complete, headersSent }) => {
    const response = new DueResponse({ complete, socket }, headersSent);
    const done = jest.fn();
    answers.trackResponseDue.call({} as FastifyInstance, { raw: response.req } as unknown as FastifyRequest, { raw: response } as unknown as FastifyReply, done);
    expect(done).toHaveBeenCalledWith();
    return response;
  });
  const answerClientError = (error: Error, asSocket: Socket) => answers.answer(error, asSocket);
  return { socket, asSocket: socket as unknown as Socket, written, due, answerClientError };
}

const parseError = (code: string) => Object.assign(new Error('Parse Error'), { code });

describe('ClientErrorAnswers', () => {
  it.each([
    ['HPE_INVALID_HEADER_TOKEN', 400, 'bad_request'],
    ['HPE_HEADER_OVERFLOW', 431, 'request_header_fields_too_large'],
  ])('answers %s with the Error body, reads nothing more, and closes', (code, status, errorCode) => {
    const { socket, asSocket, written, answerClientError } = connection();
    answerClientError(parseError(code), asSocket);
    expect(written).toHaveLength(1);
    const [head, body] = written[0].split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(head).toContain('Connection: close');
    expect(JSON.parse(body)).toEqual({ code: errorCode, message: expect.any(String), status });
    expect(socket.pause).toHaveBeenCalled();
    expect(socket.destroy).toHaveBeenCalled();
  });

  it("answers when the response due is the broken request's own", () => {
    const { asSocket, written, answerClientError } = connection({ complete: false });
    answerClientError(parseError('HPE_INVALID_CHUNK_SIZE'), asSocket);
    expect(written).toHaveLength(1);
  });

  it('answers after every earlier complete request has its answer, in order', () => {
    const {
      socket,
      asSocket,
      written,
      answerClientError,
      due: [first, second],
    } = connection({ complete: true, headersSent: true }, { complete: true });
    answerClientError(parseError('HPE_INVALID_METHOD'), asSocket);
    expect(written).toEqual([]);
    first.finish();
    expect(written).toEqual([]);
    second.finish();
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^HTTP\/1.1 400 /);
    expect(socket.destroy).toHaveBeenCalled();
  });

  it('waits for no answer that has already finished', () => {
    const {
      asSocket,
      written,
      answerClientError,
      due: [first],
    } = connection({ complete: true }, { complete: false });
    first.finish();
    answerClientError(parseError('HPE_INVALID_CHUNK_SIZE'), asSocket);
    expect(written).toHaveLength(1);
  });

  it('answers once, however often Node reports the same broken connection', () => {
    const {
      asSocket,
      written,
      answerClientError,
      due: [first],
    } = connection({ complete: true });
    answerClientError(parseError('HPE_INVALID_METHOD'), asSocket);
    answerClientError(parseError('HPE_INVALID_METHOD'), asSocket);
    first.finish();
    expect(written).toHaveLength(1);
  });

  it('closes without an answer when an earlier answer is cut off before it finishes', () => {
    const {
      socket,
      asSocket,
      written,
      answerClientError,
      due: [first],
    } = connection({ complete: true });
    answerClientError(parseError('HPE_INVALID_METHOD'), asSocket);
    first.emit('close');
    expect(written).toEqual([]);
    expect(socket.destroy).toHaveBeenCalled();
  });

  it.each([
    ['the peer reset the connection', 'ECONNRESET', []],
    ['the request timed out', 'ERR_HTTP_REQUEST_TIMEOUT', []],
    ["the broken request's own answer has started", 'HPE_INVALID_CHUNK_SIZE', [{ complete: false, headersSent: true }]],
  ])('closes without an answer when %s', (_case, code, requests) => {
    const { socket, asSocket, written, answerClientError } = connection(...requests);
    answerClientError(parseError(code), asSocket);
    expect(written).toEqual([]);
    expect(socket.destroy).toHaveBeenCalled();
  });
});
