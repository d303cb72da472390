import createClient from 'openapi-fetch';
import { ConditionalCache } from './conditional-cache';
import { AnimalStoreError, AnimalStoreNetworkError, ApiKeyBannedError, ErrorBody } from './errors';
import { DEFAULT_RETRY, fullJitterDelay, RetryEnvironment, RetryOptions, SYSTEM_ENVIRONMENT } from './retry';
import type { components, operations, paths } from './schema';

export type Pet = components['schemas']['Pet'];
export type NewPet = components['schemas']['NewPet'];
export type ListPetsQuery = NonNullable<operations['listPets']['parameters']['query']>;
export type RateLimitStatus = components['schemas']['RateLimitStatus'];
export type Order = components['schemas']['Order'];
export type ListOrdersQuery = NonNullable<operations['listOrders']['parameters']['query']>;
export type Usage = components['schemas']['Usage'];
export type UsageQuery = NonNullable<operations['getUsage']['parameters']['query']>;
export type PetPatch = components['schemas']['PetPatch'];
export type Inventory = components['schemas']['Inventory'];

export interface PetPage {
  readonly pets: Pet[];
  /** The query of the next page (from `Link: rel="next"`); absent on the last page. */
  readonly next?: ListPetsQuery;
}

export interface OrderPage {
  readonly orders: Order[];
  /** The query of the next page (from `Link: rel="next"`); absent on the last page. */
  readonly next?: ListOrdersQuery;
}

export interface AnimalStoreClientOptions {
  /** The API's base URL, ending in /v1, e.g. https://api.example.com/v1. */
  baseUrl: string;
  apiKey: string;
  retry?: Partial<RetryOptions>;
  /** Replaces the global fetch (a proxy, a test double). */
  fetch?: typeof fetch;
  /** Replaces the clock, the sleep and the randomness of the retries. */
  environment?: Partial<RetryEnvironment>;
  /** How many pages and pets the client keeps with their ETag, to ask again conditionally (default 500; 0: none). */
  cacheEntries?: number;
}

export interface ChangeOptions {
  /** The ETag of the version the change is made from: if the pet changed since, the call fails 412 `precondition_failed`. */
  ifMatch?: string;
}

export interface CreatePetOptions {
  /** Defaults to a new UUID per call; every retry of the call sends the same one. */
  idempotencyKey?: string;
}

/** What one attempt yields: the parsed body on success, else the error and the response. */
interface Attempt<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** What a later attempt may get another answer to: a refusal that says when to come back, or a server or gateway that was not ready. */
const RETRIED_STATUSES = new Set([429, 502, 503, 504]);

/**
 * The animal-store API with the retries its specification asks of clients: a
 * refusal that gives Retry-After (429, 503) waits it out, 502/503/504 without
 * it and network errors back off with full jitter, and a create is retried
 * under one Idempotency-Key.
 * Every other error is thrown at once as an AnimalStoreError.
 */
export class AnimalStoreClient {
  private readonly api: ReturnType<typeof createClient<paths>>;
  private readonly retry: RetryOptions;
  private readonly environment: RetryEnvironment;
  private readonly seen: ConditionalCache;

  constructor(options: AnimalStoreClientOptions) {
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { Authorization: `Bearer ${options.apiKey}` },
      fetch: options.fetch,
    });
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.environment = { ...SYSTEM_ENVIRONMENT, ...options.environment };
    this.seen = new ConditionalCache(options.cacheEntries ?? 500);
  }

  /**
   * One page of pets, ordered by id. A page asked for before is asked with its
   * ETag, and a 304 (which spends no quota) returns the copy kept then.
   */
  async listPets(query: ListPetsQuery = {}): Promise<PetPage> {
    const key = `pets?${query.limit ?? ''}&${query.status ?? ''}&${query.cursor ?? ''}`;
    return this.sendConditional(key, async (header) => {
      const { data, response } = await this.send(() => this.api.GET('/pets', { params: { query, header } }));
      const next = nextPageQuery(response.headers.get('Link'));
      return { page: next ? { pets: data, next } : { pets: data }, response };
    });
  }

  /** Every pet, page after page, following `Link: rel="next"` to the last page. */
  async *allPets(query: Omit<ListPetsQuery, 'cursor'> = {}): AsyncGenerator<Pet, void, undefined> {
    for (let page: ListPetsQuery | undefined = query; page; ) {
      const { pets, next } = await this.listPets(page);
      yield* pets;
      page = next;
    }
  }

  /** Stores a pet once, however many times the call has to be retried. */
  async createPet(pet: NewPet, options: CreatePetOptions = {}): Promise<Pet> {
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    const { data } = await this.send(() => this.api.POST('/pets', { body: pet, headers: { 'Idempotency-Key': idempotencyKey } }));
    return data;
  }

  /**
   * One pet by id.
   * @deprecated The service removes `GET /pets/{petId}` on 5 December 2030; use {@link listPets} with a `status` filter.
   */
  async getPet(petId: number): Promise<Pet> {
    return this.sendConditional(`pets/${petId}`, async (header) => {
      const { data, response } = await this.send(() => this.api.GET('/pets/{petId}', { params: { path: { petId }, header } }));
      return { page: data, response };
    });
  }

  /** Orders a pet once, however many times the call has to be retried: it becomes `pending`, held by the order. */
  async placeOrder(petId: number, options: CreatePetOptions = {}): Promise<Order> {
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    const { data } = await this.send(() => this.api.POST('/store/orders', { body: { petId }, headers: { 'Idempotency-Key': idempotencyKey } }));
    return data;
  }

  /** One page of the account's orders, ordered by id, asked with the ETag of the same page seen before. */
  async listOrders(query: ListOrdersQuery = {}): Promise<OrderPage> {
    const key = `orders?${query.limit ?? ''}&${query.status ?? ''}&${query.cursor ?? ''}`;
    return this.sendConditional(key, async (header) => {
      const { data, response } = await this.send(() => this.api.GET('/store/orders', { params: { query, header } }));
      const next = nextPageQuery(response.headers.get('Link')) as ListOrdersQuery | undefined;
      return { page: next ? { orders: data, next } : { orders: data }, response };
    });
  }

  /** One of the account's orders by id. */
  async getOrder(orderId: number): Promise<Order> {
    return this.sendConditional(`orders/${orderId}`, async (header) => {
      const { data, response } = await this.send(() => this.api.GET('/store/orders/{orderId}', { params: { path: { orderId }, header } }));
      return { page: data, response };
    });
  }

  /** Delivers the order (its pet sold); safe to retry, as a delivered order answers the same. */
  async deliverOrder(orderId: number): Promise<Order> {
    const { data } = await this.send(() => this.api.POST('/store/orders/{orderId}/deliver', { params: { path: { orderId } } }));
    return data;
  }

  /** Cancels the order (its pet available again); safe to retry, as a cancelled order answers the same. */
  async cancelOrder(orderId: number): Promise<Order> {
    const { data } = await this.send(() => this.api.POST('/store/orders/{orderId}/cancel', { params: { path: { orderId } } }));
    return data;
  }

  /**
   * Changes a pet by JSON merge patch: the fields given, at least one. A
   * status moves as the service allows (409 `invalid_transition`, or
   * `pet_reserved` while a placed order holds the pet).
   */
  async updatePet(petId: number, patch: PetPatch, options: ChangeOptions = {}): Promise<Pet> {
    const headers = { 'Content-Type': 'application/merge-patch+json', ...ifMatchHeader(options) };
    const { data } = await this.send(() => this.api.PATCH('/pets/{petId}', { params: { path: { petId } }, body: patch, headers }));
    return data;
  }

  /** Removes a pet. A retry after an answer lost on the way may find it gone already: 404 `not_found`. */
  async deletePet(petId: number, options: ChangeOptions = {}): Promise<void> {
    await this.send(() => this.api.DELETE('/pets/{petId}', { params: { path: { petId } }, headers: ifMatchHeader(options) }));
  }

  /** How many pets have each status. */
  async inventory(): Promise<Inventory> {
    const { data } = await this.send(() => this.api.GET('/store/inventory'));
    return data;
  }

  /** The key's plan, account, each window's limit, remaining and reset, and its ban; spends no quota. */
  async rateLimit(): Promise<RateLimitStatus> {
    const { data } = await this.send(() => this.api.GET('/rate_limit'));
    return data;
  }

  /** The account's answers per UTC day and key, by outcome (the last 7 days, the last `days`, or `from`–`to`); spends no quota. */
  async usage(query: UsageQuery = {}): Promise<Usage> {
    const { data } = await this.send(() => this.api.GET('/usage', { params: { query } }));
    return data;
  }

  /**
   * A GET that sends the ETag of the answer kept from the last time (`key`
   * names the request) and on 304 returns that answer; the caller gets a copy
   * of its own either way.
   */
  private async sendConditional<T>(
    key: string,
    call: (header: { 'If-None-Match'?: string }) => Promise<{ page: T; response: Response }>,
  ): Promise<T> {
    const kept = this.seen.get<T>(key);
    const { page, response } = await call(kept ? { 'If-None-Match': kept.etag } : {});
    if (response.status === 304 && kept) return structuredClone(kept.value);
    this.seen.set(key, response.headers.get('ETag'), structuredClone(page));
    return page;
  }

  /** Runs one logical call, retrying within the budget what the specification says may be retried. */
  private async send<T>(call: () => Promise<Attempt<T>>): Promise<{ data: T; response: Response }> {
    const started = this.environment.now();
    for (let attempt = 1; ; attempt++) {
      let wait: number;
      let failure: Error;
      try {
        const { data, error, response } = await call();
        // A 304 is an answer too: the caller returns the copy it asked about.
        if (response.ok || response.status === 304) return { data: data as T, response };
        failure = errorFrom(error, response);
        wait = this.waitBeforeRetry(failure as AnimalStoreError, attempt);
      } catch (error) {
        if (error instanceof AnimalStoreError) throw error;
        failure = new AnimalStoreNetworkError(error);
        wait = fullJitterDelay(attempt - 1, this.retry, this.environment.random);
      }
      const elapsed = this.environment.now() - started;
      if (wait < 0 || attempt >= this.retry.maxAttempts || elapsed + wait > this.retry.maxElapsedMs) throw failure;
      await this.environment.sleep(wait);
    }
  }

  /** Milliseconds to wait before the next attempt, or -1 when the error is final: the answer's Retry-After when it gives one, else full jitter. */
  private waitBeforeRetry(error: AnimalStoreError, attempt: number): number {
    if (error instanceof ApiKeyBannedError) throw error;
    if (!RETRIED_STATUSES.has(error.status) && error.code !== 'idempotency_key_in_use') return -1;
    const retryAfterSeconds = error.retryAfterSeconds;
    return retryAfterSeconds === undefined ? fullJitterDelay(attempt - 1, this.retry, this.environment.random) : retryAfterSeconds * 1000;
  }
}

function ifMatchHeader({ ifMatch }: ChangeOptions): { 'If-Match'?: string } {
  return ifMatch === undefined ? {} : { 'If-Match': ifMatch };
}

function errorFrom(body: unknown, response: Response): AnimalStoreError {
  const errorBody = isErrorBody(body)
    ? body
    : ({ code: response.status >= 500 ? 'internal_error' : 'bad_request', message: response.statusText || 'No Error body', status: response.status } as ErrorBody);
  return errorBody.code === 'api_key_banned' ? new ApiKeyBannedError(errorBody, response.headers) : new AnimalStoreError(errorBody, response.headers);
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && typeof (body as ErrorBody).code === 'string' && typeof (body as ErrorBody).status === 'number';
}

/** The query of a `Link: <…>; rel="next"` target (of pets or of orders), or undefined when there is none. */
export function nextPageQuery(link: string | null): ListPetsQuery | undefined {
  const target = /<([^>]+)>\s*;\s*rel="next"/.exec(link ?? '')?.[1];
  if (target === undefined) return undefined;
  const search = new URL(target).searchParams;
  const limit = search.get('limit');
  return {
    ...(limit === null ? {} : { limit: Number(limit) }),
    ...(search.get('status') === null ? {} : { status: search.get('status') as Pet['status'] }),
    ...(search.get('cursor') === null ? {} : { cursor: search.get('cursor')! }),
  };
}
