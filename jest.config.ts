import type { Config } from 'jest';

// Type checking is `tsc --noEmit` in `npm test`; jest only transpiles.
const transform: Config['transform'] = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true, sourceMap: true } }],
};

const e2e = (store: 'sqlite' | 'mysql'): Config => ({
  displayName: `e2e-${store}`,
  rootDir: '.',
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
  transform,
  setupFiles: [`<rootDir>/test/support/store-${store}.ts`],
  ...(store === 'mysql' ? { globalSetup: '<rootDir>/test/support/mysql.global-setup.ts' } : {}),
  testEnvironment: 'node',
});

const config: Config = {
  testTimeout: 60_000,
  projects: [
    {
      displayName: 'unit',
      rootDir: '.',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/bench/**/*.spec.ts', '<rootDir>/test/support/**/*.spec.ts'],
      transform,
      testEnvironment: 'node',
    },
    e2e('sqlite'),
    e2e('mysql'),
    {
      displayName: 'integration',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.int-spec.ts'],
      transform,
      globalSetup: '<rootDir>/test/support/integration.global-setup.ts',
      testEnvironment: 'node',
    },
    {
      // The TypeScript client: its generated types against openapi.json, its retries, and its calls to a listening service.
      displayName: 'client',
      rootDir: '.',
      testMatch: ['<rootDir>/clients/typescript/test/**/*.spec.ts'],
      transform,
      setupFiles: ['<rootDir>/test/support/store-sqlite.ts'],
      testEnvironment: 'node',
    },
    {
      // The committed API document's lint, and the docs page in a real browser.
      displayName: 'docs',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.docs-spec.ts'],
      transform,
      testEnvironment: 'node',
    },
    {
      // The layer rules of .dependency-cruiser.js, each shown to catch what it forbids.
      displayName: 'architecture',
      rootDir: '.',
      testMatch: ['<rootDir>/test/architecture/**/*.spec.ts'],
      transform,
      testEnvironment: 'node',
    },
    {
      // The container files, checked without a Docker engine.
      displayName: 'deploy',
      rootDir: '.',
      testMatch: ['<rootDir>/test/deploy/**/*.spec.ts'],
      globalSetup: '<rootDir>/test/support/build.global-setup.ts',
      transform,
      testEnvironment: 'node',
    },
  ],
};

export default config;
