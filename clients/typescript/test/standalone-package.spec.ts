import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, TestApp } from '../../../test/support/test-app';

const run = promisify(execFile);
const CLIENT = join(__dirname, '..');

/** npm as a user runs it in a folder of their own: none of the settings of the npm that started jest. */
function npm(cwd: string, ...args: string[]) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
  return run('npm', [...args, '--no-audit', '--no-fund'], { cwd, env, maxBuffer: 16 * 1024 * 1024 });
}

/** What a program that uses the client does: create a pet, read it back through the list, and print both. */
const USE = `
  const store = new AnimalStoreClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
  const pet = await store.createPet({ name: process.env.PET_NAME, categoryId: 3 });
  const { pets } = await store.listPets({ limit: 100 });
  console.log(JSON.stringify({ pet, listed: pets.some((each) => each.id === pet.id) }));
`;

/**
 * The client away from this repository: a copy of its folder builds and packs
 * with its own package.json alone, and the tarball, installed into another
 * project, loads with require and with import and calls a listening service.
 * Slow (it installs from the registry), and never skipped.
 */
describe('the client as a package of its own', () => {
  let work: string;
  let consumer: string;
  let testApp: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'animal-store-client-'));
    const copy = join(work, 'client');
    // What a user has after copying the folder: no build output, no installed packages, nothing of the repository around it.
    cpSync(CLIENT, copy, { recursive: true, filter: (source) => !/[/\\](node_modules|dist)$/.test(source) });
    await npm(copy, 'install');
    await npm(copy, 'pack');
    const [tarball] = readdirSync(copy).filter((file) => file.endsWith('.tgz'));
    consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    await npm(consumer, 'install', join(copy, tarball));

    testApp = await createTestApp();
    await testApp.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(testApp.app.getHttpServer().address() as AddressInfo).port}/v1`;
  }, 900_000);
  afterAll(async () => {
    await testApp?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const runIn = async (file: string, name: string) => {
    const { stdout } = await run(process.execPath, [file], { cwd: consumer, env: { ...process.env, BASE_URL: baseUrl, API_KEY: testApp.apiKey, PET_NAME: name } });
    return JSON.parse(stdout) as { pet: Record<string, unknown>; listed: boolean };
  };

  it('packs only what it builds, with its types', async () => {
    const { stdout } = await npm(consumer, 'ls', '@animal-store/client', '--parseable');
    const installed = stdout.trim().split('\n').pop()!;
    expect(readdirSync(installed).sort()).toEqual(['README.md', 'dist', 'package.json']);
    expect(readdirSync(join(installed, 'dist'))).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'client.js', 'schema.d.ts']));
  });

  it('loads with require and calls the service', async () => {
    writeFileSync(join(consumer, 'use.cjs'), `const { AnimalStoreClient } = require('@animal-store/client');\n(async () => {${USE}})();\n`);
    await expect(runIn('use.cjs', 'Required')).resolves.toEqual({
      pet: { id: expect.any(Number), name: 'Required', categoryId: 3, status: 'available' },
      listed: true,
    });
  });

  it('loads with import and calls the service', async () => {
    writeFileSync(join(consumer, 'use.mjs'), `import { AnimalStoreClient } from '@animal-store/client';\n${USE}\n`);
    await expect(runIn('use.mjs', 'Imported')).resolves.toEqual({
      pet: { id: expect.any(Number), name: 'Imported', categoryId: 3, status: 'available' },
      listed: true,
    });
  });
});
