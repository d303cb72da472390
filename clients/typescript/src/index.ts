export { AnimalStoreClient, nextPageQuery } from './client';
export type { AnimalStoreClientOptions, ChangeOptions, CreatePetOptions, Inventory, ListOrdersQuery, ListPetsQuery, NewPet, Order, OrderPage, Pet, PetPage, PetPatch, RateLimitStatus, Usage, UsageQuery } from './client';
export { AnimalStoreError, AnimalStoreNetworkError, ApiKeyBannedError } from './errors';
export type { ErrorBody, ErrorCode } from './errors';
export { DEFAULT_RETRY, fullJitterDelay } from './retry';
export type { RetryEnvironment, RetryOptions } from './retry';
export type { components, operations, paths } from './schema';
