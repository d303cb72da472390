import type { Config } from 'jest';

// The compose stack, run for real (npm run test:containers): apart from `npm test`, which needs no Docker engine.
const config: Config = {
  displayName: 'containers',
  rootDir: '.',
  testMatch: ['<rootDir>/test/containers/**/*.containers-spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true, sourceMap: true } }] },
  testEnvironment: 'node',
  testTimeout: 120_000,
};

export default config;
