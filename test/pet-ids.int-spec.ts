import { describeWithMariadbServer, LocalMariadb, startMariadb } from './support/mariadb-server';
import { createTestApp, TestApp } from './support/test-app';

const DATABASE = 'animal_store_pet_ids_test';

// A mariadbd of its own, as the spec stops the whole server: InnoDB must not hand a removed largest id out again after it restarts.
describeWithMariadbServer('pet ids')('pet ids after a MariaDB restart [mysql]', () => {
  let server: LocalMariadb;

  beforeAll(async () => {
    server = await startMariadb('pet-ids');
    await server.query(`CREATE DATABASE \`${DATABASE}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  }, 120_000);

  afterAll(() => server?.stop());

  const start = (): Promise<TestApp> => createTestApp({ store: 'mysql', database: { url: server.url(DATABASE), drop: async () => undefined } });

  it('never gives a removed id, the largest included, to a pet created after the server restarts', async () => {
    let testApp = await start();
    let removed: number;
    try {
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push((await testApp.client.post<{ id: number }>('/v1/pets', { name: `Pet ${i}`, categoryId: 1 })).body.id);
      removed = ids[2];
      expect((await testApp.client.request({ method: 'DELETE', url: `/v1/pets/${removed}` })).status).toBe(204);
    } finally {
      await testApp.close();
    }
    // A crash, the harder case: before MariaDB 10.2.4, InnoDB recomputed the counter as MAX(id) + 1 at start, which is the removed id.
    await server.kill();
    await server.start();
    testApp = await start();
    try {
      const after = await testApp.client.post<{ id: number }>('/v1/pets', { name: 'After', categoryId: 1 });
      expect(after.status).toBe(201);
      expect(after.body.id).toBeGreaterThan(removed);
      expect((await testApp.client.get(`/v1/pets/${removed}`)).status).toBe(404);
    } finally {
      await testApp.close();
    }
  }, 120_000);
});
