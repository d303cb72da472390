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
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
      transform,
      testEnvironment: 'node',
    },
    e2e('sqlite'),
    e2e('mysql'),
    {
      // The container files, checked without a Docker engine.
      displayName: 'deploy',
      rootDir: '.',
      testMatch: ['<rootDir>/test/deploy/**/*.spec.ts'],
      transform,
      testEnvironment: 'node',
    },
  ],
};

export default config;
