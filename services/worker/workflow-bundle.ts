import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { StackError } from '../../errors';
import { repoRoot } from '../home/repo-root';

/**
 * How every bundle of Recur's workflows is built (scripts/build-workflows.mjs, and a worker that
 * bundles at start): `workflows/stack-frames` runs in the sandbox before any workflow does.
 */
export const WORKFLOW_BUNDLER_OPTIONS = { preloadModules: [require.resolve('../../workflows/stack-frames')] };

/** Where `npm run build` writes the workflow bundles (scripts/build-workflows.mjs). */
export const WORKFLOW_BUNDLES = {
  plain: join(repoRoot(), 'dist', 'workflow-bundles', 'sessions.js'),
  traced: join(repoRoot(), 'dist', 'workflow-bundles', 'sessions-traced.js'),
};

/**
 * The bundle a worker process runs: built with the rest of dist/, so the process starts without
 * webpack (seconds, paid again by every restart after a crash). Traced: with the tracing
 * workflow interceptors, for a worker whose telemetry is on.
 */
export function prebuiltWorkflowBundle(traced: boolean): { codePath: string } {
  const codePath = traced ? WORKFLOW_BUNDLES.traced : WORKFLOW_BUNDLES.plain;
  if (!existsSync(codePath)) throw new StackError('worker', `its workflow bundle ${codePath} is missing`, 'run npm run build');
  return { codePath };
}
