#!/usr/bin/env node
/**
 * Bundles the compiled workflows (dist/workflows) into the code a worker process runs, once per
 * build instead of at every worker start: webpack takes seconds there, and a worker restarted
 * after a crash is what a session waits on. Two bundles, because workflow interceptors can only be
 * bundled in: one plain, one with the tracing interceptors for workers with telemetry on.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const { bundleWorkflowCode } = require('@temporalio/worker');
const { TRACED_WORKFLOW_MODULES } = require(join(root, 'dist', 'observability', 'temporal-tracing.js'));
const { WORKFLOW_BUNDLES, WORKFLOW_BUNDLER_OPTIONS } = require(join(root, 'dist', 'services', 'worker', 'workflow-bundle.js'));

const quiet = { info() {}, warn: console.warn, error: console.error, debug() {}, trace() {}, log() {} };
const workflowsPath = join(root, 'dist', 'workflows', 'index.js');
for (const [file, workflowInterceptorModules] of [[WORKFLOW_BUNDLES.plain, []], [WORKFLOW_BUNDLES.traced, TRACED_WORKFLOW_MODULES]]) {
  const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, ...WORKFLOW_BUNDLER_OPTIONS, logger: quiet });
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, code);
  console.log(`build-workflows: ${file.slice(root.length + 1)} ${(code.length / 1024).toFixed(0)} KiB`);
}
