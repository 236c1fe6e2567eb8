// Lints workflow code for what breaks replay (docs/workflows.md): workflow code runs
// in Temporal's sandbox, where Date and Math.random are replayed but I/O, timers outside the
// SDK's and Node's globals are not; a promise nobody awaits lets a step race the next one.
import tseslint from 'typescript-eslint';

/** Value imports a workflow may not make: Node, I/O clients, the other Temporal packages, and every layer that does I/O. */
const IO_MODULES = ['node:*', 'fs', 'fs/*', 'path', 'os', 'crypto', 'child_process', 'net', 'http', 'https', 'worker_threads', 'kafkajs', 'avsc', 'ws'];
const OTHER_TEMPORAL = ['@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@temporalio/testing'];
const IO_LAYERS = ['**/activities', '**/activities/*', '**/services', '**/services/*', '**/kernel', '**/kernel/*', '**/observability', '**/observability/*', '**/config', '**/config/*'];

export default tseslint.config({
  files: ['workflows/**/*.ts'],
  extends: [tseslint.configs.base],
  languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  rules: {
    '@typescript-eslint/no-floating-promises': 'error',
    '@typescript-eslint/no-misused-promises': 'error',
    '@typescript-eslint/no-restricted-imports': ['error', {
      patterns: [
        { group: IO_MODULES, message: 'workflow code may not do I/O: call an activity instead', allowTypeImports: true },
        { group: OTHER_TEMPORAL, message: 'workflow code imports only @temporalio/workflow', allowTypeImports: true },
        { group: IO_LAYERS, message: 'workflow code imports only workflows/ and pure schema modules (types from anywhere)', allowTypeImports: true },
      ],
    }],
    'no-restricted-globals': ['error',
      { name: 'process', message: 'process is not in the workflow sandbox; pass what is needed in the workflow input' },
      { name: 'require', message: 'workflow code imports statically' },
      { name: 'setInterval', message: 'use the SDK\'s sleep or condition' },
      { name: 'setTimeout', message: 'use the SDK\'s sleep or condition' },
    ],
  },
});
