import Fastify from 'fastify';
import { CREATED_PET_RESPONSE_SCHEMA, PET_RESPONSE_SCHEMA, PETS_RESPONSE_SCHEMA } from './pet.response';

/** A pet as a route might hand it over, with fields the specification does not have. */
const internalPet = { id: 7, name: 'Rex', categoryId: 3, status: 'sold', createdAt: '2026-11-23', keyHash: 'secret' };
const wirePet = { id: 7, name: 'Rex', categoryId: 3, status: 'sold' };

describe('the pet response schemas', () => {
  const app = Fastify();
  app.get('/one', { schema: { response: PET_RESPONSE_SCHEMA } }, async () => internalPet);
  app.get('/many', { schema: { response: PETS_RESPONSE_SCHEMA } }, async () => [internalPet, internalPet]);
  app.post('/created', { schema: { response: CREATED_PET_RESPONSE_SCHEMA } }, async (_request, reply) => reply.code(201).send(internalPet));
  afterAll(() => app.close());

  it.each([
    ['GET', '/one', 200, wirePet],
    ['GET', '/many', 200, [wirePet, wirePet]],
    ['POST', '/created', 201, wirePet],
  ] as const)('let only the specification fields of a pet leave (%s %s)', async (method, url, status, expected) => {
    const response = await app.inject({ method, url });
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual(expected);
    expect(response.body).not.toContain('secret');
  });
});
