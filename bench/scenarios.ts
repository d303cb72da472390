import { randomUUID } from 'node:crypto';
import type { Request } from 'autocannon';
import { encodeCursor } from '../src/pets/http/pet-cursor';

export const SCENARIO_NAMES = ['list-first', 'list-deep', 'get', 'create', 'create-idempotent', 'order'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];
/** What a run without --scenarios measures: the creates with an Idempotency-Key are asked for by name. */
export const DEFAULT_SCENARIOS: readonly ScenarioName[] = ['list-first', 'list-deep', 'get', 'create', 'order'];

export interface Scenario {
  readonly name: ScenarioName;
  readonly describe: string;
  readonly request: Request;
  /** Requests that follow `request` on each connection, in turn, each given what the one before answered. */
  readonly then?: readonly Request[];
}

/** How far from the end the deep cursor sits: one status in three, so a full page of 20 still follows. */
const DEEP_OFFSET = 100;

/** The requests each scenario sends, against a table seeded with pets 1..pets. */
const CREATE_REQUEST = {
  method: 'POST',
  path: '/v1/pets',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'Bench', categoryId: 7, status: 'pending' }),
} as const;

/** The id of a created resource's JSON, or 0 (which the next request is refused for) when the answer had none. */
function idIn(body: string): number {
  try {
    return (JSON.parse(body) as { id?: number }).id ?? 0;
  } catch {
    return 0;
  }
}

export function buildScenarios(pets: number): Record<ScenarioName, Scenario> {
  const deepCursor = encodeCursor(pets - DEEP_OFFSET);
  return {
    'list-first': { name: 'list-first', describe: 'GET /v1/pets?limit=20', request: { method: 'GET', path: '/v1/pets?limit=20' } },
    'list-deep': {
      name: 'list-deep',
      describe: `GET /v1/pets?limit=20&status=sold&cursor=<after ${pets - DEEP_OFFSET}>`,
      request: { method: 'GET', path: `/v1/pets?limit=20&status=sold&cursor=${deepCursor}` },
    },
    get: {
      name: 'get',
      describe: `GET /v1/pets/{random 1..${pets}}`,
      request: {
        method: 'GET',
        path: '/v1/pets/1',
        setupRequest: (request) => ({ ...request, path: `/v1/pets/${1 + Math.floor(Math.random() * pets)}` }),
      },
    },
    create: {
      name: 'create',
      describe: 'POST /v1/pets {"name":"Bench","categoryId":7,"status":"pending"}',
      request: CREATE_REQUEST,
    },
    order: {
      name: 'order',
      describe: 'POST /v1/pets (available), POST /v1/store/orders for it, POST /v1/store/orders/{id}/deliver, in turn',
      request: {
        ...CREATE_REQUEST,
        body: JSON.stringify({ name: 'Bench', categoryId: 7 }),
        onResponse: (_status, body, context) => (context.petId = idIn(body)),
      },
      then: [
        {
          method: 'POST',
          path: '/v1/store/orders',
          headers: { 'content-type': 'application/json' },
          setupRequest: (request, context) => ({ ...request, body: JSON.stringify({ petId: context.petId }) }),
          onResponse: (_status, body, context) => (context.orderId = idIn(body)),
        },
        { method: 'POST', path: '/v1/store/orders/0/deliver', setupRequest: (request, context) => ({ ...request, path: `/v1/store/orders/${context.orderId}/deliver` }) },
      ],
    },
    'create-idempotent': {
      name: 'create-idempotent',
      describe: 'POST /v1/pets as create, each with a new Idempotency-Key',
      request: {
        ...CREATE_REQUEST,
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': randomUUID() } }),
      },
    },
  };
}
