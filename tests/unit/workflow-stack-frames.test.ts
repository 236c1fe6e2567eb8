import { join } from 'node:path';
import { homedir } from 'node:os';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { WORKFLOW_BUNDLER_OPTIONS } from '../../services/worker/workflow-bundle';

/** Recur's workflow bundles cap the frames an Error records in the sandbox (workflows/stack-frames.ts); a plain bundle keeps V8's ten. */
describe('stack frames in workflow code', () => {
  let env: TestWorkflowEnvironment;

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    env = await TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path: join(homedir(), '.recur', 'tools', 'venv', 'bin', 'temporal') } },
    });
  }, 120_000);

  afterAll(async () => {
    await env?.teardown();
  });

  async function probe(taskQueue: string, options: Partial<WorkerOptions>): Promise<{ limit: number; frames: number }> {
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath: require.resolve('../helpers/workflows/stack-frames-probe'), ...options });
    return worker.runUntil(env.client.workflow.execute('stackFramesProbe', { taskQueue, workflowId: `${taskQueue}-probe` }));
  }

  it('bundled with Recur\'s options, an error ten calls deep records three frames', async () => {
    expect(await probe('frames-recur', { bundlerOptions: WORKFLOW_BUNDLER_OPTIONS })).toEqual({ limit: 3, frames: 3 });
  }, 120_000);

  it('bundled without them, it records V8\'s default of ten', async () => {
    expect(await probe('frames-plain', {})).toEqual({ limit: 10, frames: 10 });
  }, 120_000);
});
