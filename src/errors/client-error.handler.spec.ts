import type { Socket } from 'node:net';
import { answerClientError } from './client-error.handler';

function fakeSocket(due?: { headersSent: boolean; req: { complete: boolean } }) {
  const written: string[] = [];
  const socket = { writable: true, _httpMessage: due, write: jest.fn((text: string) => written.push(text)), destroy: jest.fn() };
  return { socket: socket as unknown as Socket, written, destroy: socket.destroy };
}

const parseError = (code: string) => Object.assign(new Error('Parse Error'), { code });

describe('answerClientError', () => {
  it.each([
    ['HPE_INVALID_HEADER_TOKEN', 400, 'bad_request'],
    ['HPE_HEADER_OVERFLOW', 431, 'request_header_fields_too_large'],
  ])('answers %s with the Error body and closes', (code, status, errorCode) => {
    const { socket, written, destroy } = fakeSocket();
    answerClientError(parseError(code), socket);
    expect(written).toHaveLength(1);
    const [head, body] = written[0].split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(head).toContain('Connection: close');
    expect(JSON.parse(body)).toEqual({ code: errorCode, message: expect.any(String), status });
    expect(destroy).toHaveBeenCalled();
  });

  it('answers when the response due is the broken request\'s own', () => {
    const { socket, written } = fakeSocket({ headersSent: false, req: { complete: false } });
    answerClientError(parseError('HPE_INVALID_CHUNK_SIZE'), socket);
    expect(written).toHaveLength(1);
  });

  it.each([
    ['the peer reset the connection', 'ECONNRESET', undefined],
    ['the request timed out', 'ERR_HTTP_REQUEST_TIMEOUT', undefined],
    ['an earlier complete request is still being answered', 'HPE_INVALID_METHOD', { headersSent: false, req: { complete: true } }],
    ['a response has started', 'HPE_INVALID_METHOD', { headersSent: true, req: { complete: false } }],
  ])('closes without an answer when %s', (_case, code, due) => {
    const { socket, written, destroy } = fakeSocket(due);
    answerClientError(parseError(code), socket);
    expect(written).toEqual([]);
    expect(destroy).toHaveBeenCalled();
  });
});
