import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { looksLikeApiKeySecret } from '../../src/auth/domain/api-key-secret';

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

/** The key command as the README's container section gives it, after `docker compose exec app1`. */
function composeKeyCommand(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const command = /^docker compose exec app1 (node dist\/keys\.js .+)$/m.exec(readme)?.[1];
  if (!command) throw new Error('The README shows no key command for the compose stack');
  return command.split(/\s+/);
}

describe('the key command of the production image', () => {
  const database = join(tmpdir(), `animal_store_test_keys_${process.pid}.db`);
  // The image's environment (Dockerfile ENV), on a temporary embedded store instead of MySQL.
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    APP_ENV: 'production',
    PUBLIC_BASE_URL: 'https://api.example.com/v1',
    ALLOW_SQLITE_IN_PRODUCTION: 'true',
    DATABASE_URL: `sqlite:${database}`,
    LOG_LEVEL: 'silent',
  };
  const node = (args: string[]) => run(args[0] === 'node' ? process.execPath : args[0], args.slice(1), { cwd: ROOT, env });

  afterAll(() => ['', '-wal', '-shm'].forEach((ext) => rmSync(database + ext, { force: true })));

  it('is copied into the image as dist/ with production dependencies, no sources', () => {
    const runStage = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').split(/^FROM /m).pop()!;
    expect(runStage).toMatch(/^WORKDIR \/app$/m);
    expect(runStage).toMatch(/^COPY --from=build .*\/app\/dist \.\/dist$/m);
    expect(runStage).not.toMatch(/COPY .*src/);
  });

  it('makes the first key with the exact command of the README, on a store it migrates itself', async () => {
    const command = composeKeyCommand();
    expect(command).toEqual(['node', 'dist/keys.js', 'create', '--plan', 'pro']);
    const { stdout } = await node(command);
    const key = stdout.trimEnd().split('\n').pop()!;
    expect(key).toMatch(/^ask_live_[A-Za-z0-9_-]{43}[A-Za-z0-9]{6}$/);
    expect(looksLikeApiKeySecret(key)).toBe(true);
    expect(stdout).toMatch(/Created API key 1: plan pro, 300\/minute, 10000\/day\./);
  });

  it('lists the keys, and npm run keys answers the same on a built tree without building again', async () => {
    const direct = await node(['node', 'dist/keys.js', 'list']);
    expect(direct.stdout).toMatch(/^1 +- +pro +300 +10000 /m);
    const viaNpm = await run('npm', ['run', '-s', 'keys', '--', 'list'], { cwd: ROOT, env });
    expect(viaNpm.stdout).toBe(direct.stdout);
    expect(viaNpm.stderr).not.toMatch(/Building/);
  });
});
