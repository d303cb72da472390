import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OutgoingHttpHeaders } from 'node:http';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: OutgoingHttpHeaders;
  body: T;
  text: string;
}

export interface ApiRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  url: string;
  /** An object is sent as JSON; a string is sent as it is. */
  payload?: unknown;
  headers?: Record<string, string>;
  /** The client address the service sees (default 127.0.0.1). */
  remoteAddress?: string;
}

/** Calls the app in-process (Fastify inject) with the default headers of a client. */
export class ApiClient {
  constructor(
    private readonly app: NestFastifyApplication,
    private readonly defaultHeaders: Record<string, string> = {},
  ) {}

  withHeaders(headers: Record<string, string>): ApiClient {
    return new ApiClient(this.app, { ...this.defaultHeaders, ...headers });
  }

  async request<T = unknown>({ method = 'GET', url, payload, headers, remoteAddress }: ApiRequest): Promise<ApiResponse<T>> {
    const isJson = payload !== undefined && typeof payload !== 'string';
    const response = await this.app.inject({
      method,
      url,
      payload: isJson ? JSON.stringify(payload) : (payload as string | undefined),
      headers: { ...(isJson ? { 'content-type': 'application/json' } : {}), ...this.defaultHeaders, ...headers },
      remoteAddress,
    });
    let body: unknown = undefined;
    try {
      body = response.body ? JSON.parse(response.body) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.statusCode, headers: response.headers, body: body as T, text: response.body };
  }

  get<T = unknown>(url: string, headers?: Record<string, string>): Promise<ApiResponse<T>> {
    return this.request<T>({ url, headers });
  }

  post<T = unknown>(url: string, payload?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>> {
    return this.request<T>({ method: 'POST', url, payload, headers });
  }
}

/** The `rel="next"` target of a Link header, as a path and query, or undefined. */
export function nextLink(headers: OutgoingHttpHeaders): string | undefined {
  const link = String(headers.link ?? '');
  const match = /<([^>]+)>;\s*rel="next"/.exec(link);
  if (!match) return undefined;
  const url = new URL(match[1]);
  return `${url.pathname}${url.search}`;
}

/** Asserts the one Error shape: exactly code, message and status, status equal to the HTTP status. */
export function expectErrorBody(response: ApiResponse, status: number, code: string): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status,
    body: { code, message: expect.any(String), status },
  });
  expect(Object.keys(response.body as object).sort()).toEqual(['code', 'message', 'status']);
  expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
}

/** Every item of a paged list, following Link rel="next" from the first page to the last. */
export async function collectPages<T>(client: ApiClient, first: string): Promise<T[]> {
  const items: T[] = [];
  for (let url: string | undefined = first; url; ) {
    const page: ApiResponse<T[]> = await client.get<T[]>(url);
    expect({ url, status: page.status }).toEqual({ url, status: 200 });
    items.push(...page.body);
    url = nextLink(page.headers);
  }
  return items;
}
