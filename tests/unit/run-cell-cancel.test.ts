import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import type { KernelClient } from '../../activities/kernel/index';
import { createKernelActivities } from '../../activities/run-cell';
import type { RunCellInput } from '../../activities/session-activities';

/** A kernel client whose cell runs until it is interrupted; only what runCell uses on a kernel that is up. */
function slowKernel() {
  let end: (r: unknown) => void = () => undefined;
  const interrupt = jest.fn(async () => end({
    status: 'interrupted', stdout: '', stderr: '', result: null, displays: [], truncated: false, durationMs: 5, executionCount: 3,
    error: { ename: 'KeyboardInterrupt', evalue: '', traceback: '' },
  }));
  const kernels = {
    start: async () => ({ fresh: false }),
    execute: () => new Promise((resolve) => (end = resolve)),
    interrupt,
  } as unknown as KernelClient;
  const { runCell } = createKernelActivities({ kernels, blobs: {} as never, transcripts: {} as never, snapshots: {} as never });
  return { runCell, interrupt };
}

const input: RunCellInput = { sessionId: 's', rootId: 's', cellId: 's/3', code: 'import time; time.sleep(60)', timeoutSeconds: 60, firstCell: false, restoreFrom: null, throughSeq: 3 };

describe('runCell when its activity is cancelled', () => {
  const start = (runCell: ReturnType<typeof slowKernel>['runCell']) => {
    const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
    const run = env.run(runCell, input);
    return { env, run };
  };

  it('by its worker shutting down (a deploy): the attempt ends at once and the cell runs on in the kernel', async () => {
    const { runCell, interrupt } = slowKernel();
    const { env, run } = start(runCell);
    await new Promise((resolve) => setImmediate(resolve));
    env.cancel('WORKER_SHUTDOWN');
    await expect(run).rejects.toBeInstanceOf(CancelledFailure);
    expect(interrupt).not.toHaveBeenCalled();
  });

  it('by its workflow (the session cancelled): the cell is interrupted', async () => {
    const { runCell, interrupt } = slowKernel();
    const { env, run } = start(runCell);
    await new Promise((resolve) => setImmediate(resolve));
    env.cancel('CANCELLED');
    await expect(run).resolves.toMatchObject({ cell: { status: 'interrupted' } });
    expect(interrupt).toHaveBeenCalledWith('s');
  });
});
