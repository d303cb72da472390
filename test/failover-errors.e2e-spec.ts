import { QueryFailedError } from 'typeorm';
import { PetRepository } from '../src/pets/domain/pet.repository';
import { expectErrorBody } from './support/api-client';
import { createTestApp, TestApp } from './support/test-app';

/** A driver error as mysql2 raises it, wrapped by TypeORM as a failed statement is. */
const failedStatement = (fields: Record<string, unknown>) => new QueryFailedError('SELECT 1', [], Object.assign(new Error('driver'), fields));

/** A store whose every statement fails as `failure` says. */
function failingPets(failure: () => Error): PetRepository {
  return { create: () => Promise.reject(failure()), findById: () => Promise.reject(failure()), findPage: () => Promise.reject(failure()) };
}

/**
 * Through the whole app (its filters in the order AppModule gives them), a
 * statement cut off by a lost node, or undone by a certification conflict, is
 * a 503 with Retry-After; any other failure stays a 500.
 */
describe('answers to a lost database node', () => {
  const apps: TestApp[] = [];
  const appFailing = async (failure: () => Error) => {
    const app = await createTestApp({ overrides: [{ provide: PetRepository, useValue: failingPets(failure) }] });
    apps.push(app);
    return app;
  };

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });

  it.each([
    ['a connection lost under a statement', () => failedStatement({ code: 'PROTOCOL_CONNECTION_LOST', fatal: true })],
    ['a refused connection', () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', fatal: true })],
    ['a Galera node not ready for statements', () => failedStatement({ code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 })],
    ['a certification conflict at commit', () => failedStatement({ code: 'ER_LOCK_DEADLOCK', errno: 1213 })],
  ])('answers %s 503 service_unavailable with Retry-After: 1, on reads and creates', async (_, failure) => {
    const { client } = await appFailing(failure);
    for (const response of [await client.get('/v1/pets'), await client.get('/v1/pets/1'), await client.post('/v1/pets', { name: 'Rex', categoryId: 1 })]) {
      expectErrorBody(response, 503, 'service_unavailable');
      expect(response.headers['retry-after']).toBe('1');
      expect(response.text).not.toMatch(/PROTOCOL|ECONN|ER_|SELECT|driver/);
    }
  });

  it('leaves any other failure a 500 internal_error, without Retry-After', async () => {
    const { client } = await appFailing(() => failedStatement({ code: 'ER_NO_SUCH_TABLE', errno: 1146 }));
    const response = await client.get('/v1/pets');
    expectErrorBody(response, 500, 'internal_error');
    expect(response.headers['retry-after']).toBeUndefined();
  });
});
