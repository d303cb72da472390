import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The deploy specs run the built commands (dist/), so dist/ is built once here, before any of them, never by two specs at once. */
export default function globalSetup(): void {
  const build = spawnSync(process.execPath, ['scripts/build-if-stale.js'], { cwd: join(__dirname, '..', '..'), encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`Building dist/ failed:\n${build.stderr}`);
}
