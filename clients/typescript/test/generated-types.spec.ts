import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const PACKAGE = join(__dirname, '..');
const ROOT = join(PACKAGE, '..', '..');

describe('the generated types', () => {
  it('are what openapi-typescript makes of the committed openapi.json (run `npm run generate` in clients/typescript when this fails)', () => {
    const generated = execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), join(ROOT, 'openapi.json'), '--default-non-nullable', 'false'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    expect(generated).toBe(readFileSync(join(PACKAGE, 'src', 'schema.ts'), 'utf8'));
  });
});
