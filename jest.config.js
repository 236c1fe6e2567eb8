/**
 * Test tiers are named by what they touch. `unit` needs nothing running; `integration` runs
 * against the real embedded stack (Kafka, Temporal, Jupyter) that its globalSetup starts; `system`
 * installs the packed tarball and runs it as an unprivileged user, with a stack of that user's own.
 */
const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
const shared = { transform, testEnvironment: 'node', moduleFileExtensions: ['ts', 'js', 'json'], setupFiles: ['<rootDir>/tests/helpers/without-ci-env.ts'] };

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/tests/unit/**/*.test.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/tests/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/tests/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/tests/helpers/global-teardown.ts',
      slowTestThreshold: 30,
    },
    { ...shared, displayName: 'system', testMatch: ['<rootDir>/tests/system/**/*.test.ts'], slowTestThreshold: 60 },
  ],
  testTimeout: 120000,
  // Integration files share one stack (and kill its worker on purpose): one test file at a time.
  maxWorkers: 1,
};
