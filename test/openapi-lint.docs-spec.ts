import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { OPENAPI_FILE } from './support/openapi-contract';

const ROOT = join(__dirname, '..');

interface SpectralResult {
  code: string;
  message: string;
  severity: number;
  path: string[];
}

describe('openapi.json', () => {
  it('lints clean with Spectral (the ruleset in .spectral.yaml): no error, no warning', () => {
    const run = spawnSync(
      join(ROOT, 'node_modules', '.bin', 'spectral'),
      ['lint', OPENAPI_FILE, '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--fail-severity', 'warn', '--quiet'],
      { cwd: ROOT, encoding: 'utf8', timeout: 50_000 },
    );
    expect(run.error).toBeUndefined();
    const results = JSON.parse(run.stdout || 'null') as SpectralResult[] | null;
    expect(results?.map(({ code, message, path }) => `${code} at ${path.join('.')}: ${message}`)).toEqual([]);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  });
});
