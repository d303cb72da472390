import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { answerClientError } from './client-error.handler';

/** A response Node has due on the socket: the request it answers, and whether its head has gone out. */
class DueResponse extends EventEmitter {
  writableFinished = false;

  constructor(
    readonly req: { complete: boolean },
    readonly headersSent = false,
  ) {
    super();
  }

  finish(next: DueResponse | null, socket: { _httpMessage: DueResponse | null }): void {
    // As Node does: the socket passes to the next response before anyone else hears of the finish.
    socket._httpMessage = next;
    this.writableFinished = true;
    this.emit('finish');
  }
}

function fakeSocket(due: DueResponse | null = null) {
  const written: string[] = [];
  const socket = {
    writable: true,
    _httpMessage: due,
    pause: jest.fn(),
    end: jest.fn((text: string, done: () => void) => {
      written.push(text);
      done();
    }),
    destroy: jest.fn(),
  };
  return { socket, asSocket: socket as unknown as Socket, written };
}

const parseError = (code: string) => Object.assign(new Error('Parse Error'), { code });

describe('answerClientError', () => {
  it.each([
    ['HPE_INVALID_HEADER_TOKEN', 400, 'bad_request'],
    ['HPE_HEADER_OVERFLOW', 431, 'request_header_fields_too_large'],
  ])('answers %s with the Error body, reads nothing more, and closes', (code, status, errorCode) => {
    const { socket, asSocket, written } = fakeSocket();
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
    const { asSocket, written } = fakeSocket(new DueResponse({ complete: false }));
    answerClientError(parseError('HPE_INVALID_CHUNK_SIZE'), asSocket);
    expect(written).toHaveLength(1);
  });

  it('answers after every earlier complete request has its answer, in order', () => {
    const second = new DueResponse({ complete: true });
    const first = new DueResponse({ complete: true }, true);
    const { socket, asSocket, written } = fakeSocket(first);
    answerClientError(parseError('HPE_INVALID_METHOD'), asSocket);
    expect(written).toEqual([]);
    first.finish(second, socket);
    expect(written).toEqual([]);
    second.finish(null, socket);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^HTTP\/1.1 400 /);
    expect(socket.destroy).toHaveBeenCalled();
  });

  it('answers once, however often Node reports the same broken connection', () => {
    const first = new DueResponse({ complete: true });
    const { socket, asSocket, written } = fakeSocket(first);
    answerClientError(parseError('HPE_INVALID_METHOD'), asSocket);
    answerClientError(parseError('HPE_INVALID_METHOD'), asSocket);
    first.finish(null, socket);
    expect(written).toHaveLength(1);
  });

  it('closes without an answer when an earlier answer is cut off before it finishes', () => {
    const first = new DueResponse({ complete: true });
    const { socket, asSocket, written } = fakeSocket(first);
    answerClientError(parseError('HPE_INVALID_METHOD'), asSocket);
    first.emit('close');
    expect(written).toEqual([]);
    expect(socket.destroy).toHaveBeenCalled();
  });

  it.each([
    ['the peer reset the connection', 'ECONNRESET', null],
    ['the request timed out', 'ERR_HTTP_REQUEST_TIMEOUT', null],
    ["the broken request's own answer has started", 'HPE_INVALID_CHUNK_SIZE', new DueResponse({ complete: false }, true)],
  ])('closes without an answer when %s', (_case, code, due) => {
    const { socket, asSocket, written } = fakeSocket(due);
    answerClientError(parseError(code), asSocket);
    expect(written).toEqual([]);
    expect(socket.destroy).toHaveBeenCalled();
  });
});
