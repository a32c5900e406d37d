/**
 * One jest run for every suite. A global setup starts the local runtime once (DynamoDB Local in
 * memory, local SQS and SES, the HTTP gateway) as a child process, exactly as `npm start` does;
 * API tests call it over real HTTP. middy is ESM-only, so it is transformed for jest.
 */
// The AWS SDK warns once per process that it will need Node 22 from 2027; Lambda runs 22 already.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.[tj]s$': [
      'ts-jest',
      { tsconfig: { module: 'commonjs', moduleResolution: 'node10', allowJs: true, isolatedModules: true, esModuleInterop: true, target: 'ES2022' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  moduleNameMapper: {
    '^#shared/(.*)$': '<rootDir>/shared/$1',
    '^#functions/(.*)$': '<rootDir>/functions/$1',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30_000,
};
