import { DataSource } from 'typeorm';

const LOCK_NAME = 'animal_store_migrations';
const LOCK_WAIT_SECONDS = 60;

/**
 * Applies pending migrations. On MySQL an advisory lock makes replicas that start
 * together take turns, so exactly one of them runs each migration.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  if (dataSource.options.type !== 'mysql') {
    return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
  }
  const runner = dataSource.createQueryRunner();
  try {
    const [{ locked }] = await runner.query('SELECT GET_LOCK(?, ?) AS locked', [LOCK_NAME, LOCK_WAIT_SECONDS]);
    if (Number(locked) !== 1) throw new Error(`Timed out after ${LOCK_WAIT_SECONDS}s waiting for the migration lock`);
    try {
      return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
    } finally {
      await runner.query('SELECT RELEASE_LOCK(?)', [LOCK_NAME]);
    }
  } finally {
    await runner.release();
  }
}
