import { ApiKeysService } from '../src/auth/application/api-keys.service';
import { createTestApp, TestApp } from './support/test-app';

/**
 * Commands that create keys into one new account at the same moment, on MariaDB,
 * whose connections run them truly at once. (The embedded SQLite store has one
 * connection per process; there the race is between processes, which SQLite's
 * own locking serialises.)
 */
(process.env.MYSQL_AVAILABLE === '1' ? describe : describe.skip)('keys created at the same moment into one new account [mysql]', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await createTestApp({ store: 'mysql' });
  });
  afterAll(() => testApp?.close());

  it('all go into that one account', async () => {
    const created = await Promise.all(
      Array.from({ length: 8 }, (_, i) => testApp.createKey({ plan: 'pro', name: `racer ${i}`, account: 'racers' })),
    );
    const keys = await testApp.app.get(ApiKeysService).list();
    const ours = keys.filter((key) => created.some(({ id }) => id === key.id));
    expect(ours).toHaveLength(8);
    expect(new Set(ours.map((key) => key.account.id)).size).toBe(1);
    expect(ours[0].account.name).toBe('racers');
  });
});
