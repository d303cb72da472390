import 'reflect-metadata';
import autocannon from 'autocannon';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../../src/auth/application/api-keys.service';
import { PlanTable } from '../../src/auth/application/plan-table';
import { ApiKeyRepository } from '../../src/auth/domain/api-key.repository';
import { AccountOrmEntity } from '../../src/auth/infrastructure/account.orm-entity';
import { ApiKeyOrmEntity } from '../../src/auth/infrastructure/api-key.orm-entity';
import { TypeOrmApiKeyRepository } from '../../src/auth/infrastructure/typeorm-api-key.repository';
import { loadConfig } from '../../src/config/app-config';
import { createDataSourceOptions } from '../../src/database/database-options';
import { openTransactions } from '../../src/database/transactions';
import { runMigrations } from '../../src/database/run-migrations';
import { SystemClock } from '../../src/config/clock';
import { Variant, VARIANTS } from './variants';

/**
 * `npm run bench:guards`: GET /v1/pets?limit=20 against the same service with
 * its guards on and off (auth; auth + limits in memory; auth + limits in Redis),
 * in alternating rounds, reported as medians and as ratios to "off".
 */
const ROOT = join(__dirname, '..', '..');
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const { values: flags } = parseArgs({
  options: { duration: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' }, connections: { type: 'string', default: '50' } },
});
const duration = Number(flags.duration);
const rounds = Number(flags.rounds);
const connections = Number(flags.connections);
if (![duration, rounds, connections].every((n) => Number.isInteger(n) && n > 0)) {
  console.error('bench:guards: --duration, --rounds and --connections take positive integers');
  process.exit(2);
}

function redisAnswers(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(6379, '127.0.0.1', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function prepareStore(databaseUrl: string): Promise<string> {
  const dataSource = await new DataSource(createDataSourceOptions(databaseUrl, [AccountOrmEntity, ApiKeyOrmEntity])).initialize();
  await runMigrations(dataSource);
  const rows = Array.from({ length: 1_000 }, (_, i) => `('pet ${i}', ${i + 1}, '${['available', 'pending', 'sold'][i % 3]}')`);
  await dataSource.query(`INSERT INTO pets (name, category_id, status) VALUES ${rows.join(',')}`);
  const config = loadConfig({ APP_ENV: 'test' });
  const transactions = await openTransactions(dataSource);
  const repository: ApiKeyRepository = new TypeOrmApiKeyRepository(dataSource.getRepository(ApiKeyOrmEntity), transactions.unitOfWork, transactions.txHost);
  const keys = new ApiKeysService(repository, PlanTable.fromOverrides(config.rateLimitPlans), config, new SystemClock());
  const { secret } = await keys.create({ plan: 'enterprise', perMinute: 1_000_000_000, perDay: 1_000_000_000, name: 'bench' });
  await transactions.close();
  await dataSource.destroy();
  return secret;
}

function startServer(variant: Variant, port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'bench/guard-cost/server.ts', variant], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'error', APP_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`${variant} server exited with ${code}`)));
  });
}

async function load(port: number, key: string, seconds: number) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/v1/pets?limit=20`,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${key}` },
  });
  return { reqPerSec: result.requests.total / result.duration, p99Ms: result.latency.p99, non2xx: result.non2xx + result.errors };
}

async function main(): Promise<void> {
  const dir = join(tmpdir(), `animal-store-guard-bench-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const databaseUrl = `sqlite:${join(dir, 'bench.db')}`;
  const key = await prepareStore(databaseUrl);
  const variants = (await redisAnswers()) ? [...VARIANTS] : VARIANTS.filter((v) => v !== 'redis');
  if (!variants.includes('redis')) console.warn('bench:guards: Redis does not answer on 127.0.0.1:6379; the redis variant is left out');
  const servers = new Map<Variant, { port: number; child: ChildProcess }>();
  try {
    for (const [i, variant] of variants.entries()) {
      const port = 3290 + i;
      const env: Record<string, string> = { DATABASE_URL: databaseUrl, REDIS_KEY_PREFIX: `animal-store-bench:${process.pid}:` };
      if (variant === 'redis') env.REDIS_URL = 'redis://127.0.0.1:6379';
      servers.set(variant, { port, child: await startServer(variant, port, env) });
      await load(port, key, 2); // warm-up: JIT, caches, connections
    }
    const figures = new Map<Variant, Array<{ reqPerSec: number; p99Ms: number; non2xx: number }>>(variants.map((v) => [v, []]));
    for (let round = 0; round < rounds; round++) {
      // Rotate the order so no variant always runs first or last in a round.
      const order = variants.map((_, i) => variants[(i + round) % variants.length]);
      for (const variant of order) {
        const result = await load(servers.get(variant)!.port, key, duration);
        figures.get(variant)!.push(result);
        console.log(`round ${round + 1}/${rounds} ${variant.padEnd(6)} ${result.reqPerSec.toFixed(0)} req/s, p99 ${result.p99Ms} ms`);
      }
    }
    const off = figures.get('off')!;
    const rows = variants.map((variant) => {
      const runs = figures.get(variant)!;
      return {
        variant,
        reqPerSec: Math.round(median(runs.map((r) => r.reqPerSec))),
        p99Ms: median(runs.map((r) => r.p99Ms)),
        ratioToOff: Number(median(runs.map((r, i) => r.reqPerSec / off[i].reqPerSec)).toFixed(3)),
        non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
      };
    });
    console.log(`\nGET /v1/pets?limit=20, ${connections} connections, ${rounds} rounds of ${duration} s, medians:`);
    console.table(rows);
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    const file = join(ROOT, 'bench', 'results', `guard-cost-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify({ connections, rounds, duration, rows, runs: Object.fromEntries(figures) }, null, 2));
    console.log(`written ${file}`);
  } finally {
    for (const { child } of servers.values()) child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
