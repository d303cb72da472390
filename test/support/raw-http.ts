import { connect } from 'node:net';
import type { ApiResponse } from './api-client';

export interface RawExchange {
  /** The first response on the connection, if a whole one arrived. */
  response?: ApiResponse;
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
}

/**
 * Writes bytes as they are to the listening service over a real socket, so
 * framing that no HTTP client would send reaches Node's parser, and reads back
 * the first response.
 */
export async function sendRaw(port: number, bytes: string | Buffer, options: RawRequestOptions = {}): Promise<RawExchange> {
  const { untilClose = false, timeoutMs = 5_000, halfClose = false } = options;
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
      resolve({ response: parseResponse(raw), closed, timedOut, raw: raw.toString('latin1') });
    };
    const timer = setTimeout(() => finish(false, true), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (!untilClose && parseResponse(Buffer.concat(chunks))) finish(false, false);
    });
    // A reset after the server's answer still counts as the server closing.
    socket.on('error', () => finish(true, false));
    socket.on('close', () => finish(true, false));
    if (halfClose) socket.end(bytes);
    else socket.write(bytes);
  });
}

/** The first whole HTTP/1.1 response in the bytes (Content-Length or chunked body), or undefined. */
export function parseResponse(raw: Buffer): ApiResponse | undefined {
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
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: Number(status[1]), headers, body: parsed, text };
}

function readBody(rest: Buffer, headers: Record<string, string>): Buffer | undefined {
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    let offset = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', offset);
      if (lineEnd < 0) return undefined;
      const size = parseInt(rest.subarray(offset, lineEnd).toString('latin1'), 16);
      if (Number.isNaN(size)) return undefined;
      if (size === 0) return Buffer.concat(parts);
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      offset = lineEnd + 2 + size + 2;
    }
  }
  const length = Number(headers['content-length'] ?? 0);
  return rest.length >= length ? rest.subarray(0, length) : undefined;
}
