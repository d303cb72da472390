/**
 * The wire form of a Pet: exactly the specification's fields, ids as JSON
 * numbers. Routes return domain Pets as they are; these response schemas let
 * Fastify compile a serializer for each operation (instead of calling
 * JSON.stringify on every reply) and are what decides which fields leave, so
 * no copy of each pet is made to strip fields.
 */
const PET_JSON_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    categoryId: { type: 'integer' },
    status: { type: 'string' },
  },
  required: ['id', 'name', 'categoryId', 'status'],
  additionalProperties: false,
} as const;

export const PET_RESPONSE_SCHEMA = { 200: PET_JSON_SCHEMA } as const;
export const CREATED_PET_RESPONSE_SCHEMA = { 201: PET_JSON_SCHEMA } as const;
export const PETS_RESPONSE_SCHEMA = { 200: { type: 'array', items: PET_JSON_SCHEMA } } as const;
