import { connect } from 'node:net';
import type { ApiResponse } from './api-client';

export interface RawExchange {
  /** The first final (not 1xx) response on the connection, if a whole one arrived. */
  response?: ApiResponse;
  /** Every whole response on the connection in order, interim ones (100 Continue) included. */
  responses: ApiResponse[];
  /** Whether the server closed the connection before the time ran out. */
  closed: boolean;
  /** Whether the time ran out: the server neither answered in full nor closed. */
  timedOut: boolean;
  /** Everything the server sent, for failure messages. */
  raw: string;
}

export interface RawRequestOptions {
  /** Wait for the server to close the connection, not just for a whole response. */
  untilClose?: boolean;
  timeoutMs?: number;
  /** End the client's side after the bytes, so a request that declares more body than it sends cannot keep the server waiting. */
  halfClose?: boolean;
  /** Bytes held back until the server answers 100 Continue, as a client sending `Expect: 100-continue` holds its body. */
  afterContinue?: string;
}

/**
 * Writes bytes as they are to the listening service over a real socket, so
 * framing that no HTTP client would send reaches Node's parser, and reads back
 * the first response.
 */
export async function sendRaw(port: number, bytes: string | Buffer, options: RawRequestOptions = {}): Promise<RawExchange> {
  const { untilClose = false, timeoutMs = 5_000, halfClose = false } = options;
  let heldBack = options.afterContinue;
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean, timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks);
      const responses = parseResponses(raw);
      resolve({ response: responses.find(isFinal), responses, closed, timedOut, raw: raw.toString('latin1') });
    };
    const timer = setTimeout(() => finish(false, true), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const responses = parseResponses(Buffer.concat(chunks));
      if (heldBack !== undefined && responses.some((response) => response.status === 100)) {
        socket.write(heldBack);
        heldBack = undefined;
      }
      if (!untilClose && responses.some(isFinal)) finish(false, false);
    });
    // A reset after the server's answer still counts as the server closing.
    socket.on('error', () => finish(true, false));
    socket.on('close', () => finish(true, false));
    if (halfClose) socket.end(bytes);
    else socket.write(bytes);
  });
}

const isFinal = (response: ApiResponse) => response.status >= 200;

/** Every whole response in the bytes, in order, as pipelined requests are answered. */
export function parseResponses(raw: Buffer): ApiResponse[] {
  const responses: ApiResponse[] = [];
  for (let read = readResponse(raw); read; read = readResponse(raw)) {
    responses.push(read.response);
    raw = raw.subarray(read.length);
  }
  return responses;
}

function readResponse(raw: Buffer): { response: ApiResponse; length: number } | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!status) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = readBody(raw.subarray(end + 4), headers);
  if (body === undefined) return undefined;
  const text = body.content.toString('utf8');
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { response: { status: Number(status[1]), headers, body: parsed, text }, length: end + 4 + body.length };
}

/** The body and how many bytes it took on the wire. An interim (1xx) response has none. */
function readBody(rest: Buffer, headers: Record<string, string>): { content: Buffer; length: number } | undefined {
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    let offset = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', offset);
      if (lineEnd < 0) return undefined;
      const size = parseInt(rest.subarray(offset, lineEnd).toString('latin1'), 16);
      if (Number.isNaN(size)) return undefined;
      if (size === 0) {
        // The last chunk, then the (empty) trailer section's CRLF.
        const trailerEnd = rest.indexOf('\r\n', lineEnd + 2);
        return trailerEnd < 0 ? undefined : { content: Buffer.concat(parts), length: trailerEnd + 2 };
      }
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      offset = lineEnd + 2 + size + 2;
    }
  }
  const length = Number(headers['content-length'] ?? 0);
  return rest.length >= length ? { content: rest.subarray(0, length), length } : undefined;
}
