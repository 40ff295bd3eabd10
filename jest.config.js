// Five tiers (STYLE.md): unit beside the code, medium (a repository against the real PostgreSQL),
// integration against real PostgreSQL/Redis/NATS,
// end-to-end against the four services started as processes, and topology: the production shape
// (two replicas of each service, a NATS cluster, Redis Cluster, a PostgreSQL primary and replica,
// all private, from deploy/) with a journey and fault drills. `npm test` runs all five.
const buildOptions = require('./tools/swc-options.cjs')();
// jest's module registry cannot run native import() without --experimental-vm-modules: in tests,
// dynamic imports (e.g. Nest's lazy package loader) become require(), everything else is as built.
const swcOptions = { ...buildOptions, module: { ...buildOptions.module, ignoreDynamic: false } };

const transform = { '^.+\\.ts$': ['@swc/jest', { ...swcOptions, swcrc: false }] };
const moduleNameMapper = {
  '^@crm/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
};
// NestJS 12, jose and oauth4webapi ship ESM only; on Node 22 jest cannot require(esm), so SWC
// compiles them to CommonJS.
const ESM_PACKAGES = '@nestjs|jose|oauth4webapi';
const transformIgnorePatterns = [`/node_modules/(?!(${ESM_PACKAGES})/)`];
const common = {
  transform: {
    ...transform,
    [`^.+/node_modules/(${ESM_PACKAGES})/.+\\.js$`]: [
      '@swc/jest',
      { ...swcOptions, swcrc: false, jsc: { ...swcOptions.jsc, parser: { syntax: 'ecmascript', decorators: true } } },
    ],
  },
  transformIgnorePatterns,
  moduleNameMapper,
  setupFiles: ['reflect-metadata'],
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
};
const ignore = ['/node_modules/', '/dist/'];

module.exports = {
  // The progress lines let .ci/run name a file that hangs (tools/jest-progress-reporter.cjs).
  reporters: ['default', '<rootDir>/tools/jest-progress-reporter.cjs'],
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,deploy,tools}/**/*.spec.ts'],
      testPathIgnorePatterns: ignore,
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs}/**/*.int-spec.ts'],
      testPathIgnorePatterns: ignore,
      globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/jest-setup.ts'],
    },
    {
      // Repositories and services against the real PostgreSQL, one database per file (immich's test/medium).
      ...common,
      displayName: 'medium',
      testMatch: ['<rootDir>/apps/**/*.medium-spec.ts'],
      testPathIgnorePatterns: ignore,
      globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/libs/testing/src/jest-setup.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: ignore,
      globalSetup: '<rootDir>/test/e2e/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/e2e/jest-setup.ts'],
    },
    {
      // The production shape from deploy/ on private loopback servers, a journey and fault drills (test/topology).
      ...common,
      displayName: 'topology',
      testMatch: ['<rootDir>/test/topology/**/*.topology-spec.ts'],
      testPathIgnorePatterns: ignore,
      globalSetup: '<rootDir>/test/topology/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/topology/jest-setup.ts'],
    },
  ],
};
