import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { minimumNodeOf, unsupportedNodeLine } from './supported-node';

describe('the Node version check of every entry point', () => {
  it("reads the minimum from package.json's engines", () => {
    const { engines } = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(engines.node).toBe('>=24.11');
    expect(minimumNodeOf(engines.node)).toEqual([24, 11]);
  });

  it('says in one line which Node it needs and how to run it, and lets a newer one pass', () => {
    expect(unsupportedNodeLine('20.20.2', [24, 11], '/usr/bin/node')).toBe(
      'animal-store needs Node 24.11 or later; /usr/bin/node is Node 20.20.2. Run it through npm (npm start, npm run keys, npm run migrate, npm run backup), which uses the Node that npm ci installed, or as node_modules/.bin/node dist/main.js',
    );
    expect(unsupportedNodeLine('24.10.0', [24, 11], 'node')).toMatch(/^animal-store needs Node 24.11 or later; node is Node 24.10.0\./);
    expect(unsupportedNodeLine('24.11.0', [24, 11], 'node')).toBeUndefined();
    expect(unsupportedNodeLine('26.0.0', [24, 11], 'node')).toBeUndefined();
  });
});
