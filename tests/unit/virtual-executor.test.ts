import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobLauncher } from '../../activities/jobs/job-launch';
import type { RunJobInput, RunJobResult } from '../../activities/jobs/run-job';
import { createVirtualJobActivities, reportedSeconds } from '../../activities/jobs/virtual-executor';

describe('reportedSeconds', () => {
  it('takes the last sim_seconds line, and nothing else that looks like one', () => {
    expect(reportedSeconds('step:10/10 val_loss:3.1\nsim_seconds: 12.5\n')).toBe(12.5);
    expect(reportedSeconds('sim_seconds: 1\nsim_seconds:3600\n{"accepted":false}\n')).toBe(3600);
    expect(reportedSeconds('no report\n')).toBeNull();
    for (const bad of ['sim_seconds: -4', 'sim_seconds: 1e3', 'x sim_seconds: 5', 'sim_seconds: 5 minutes', 'sim_seconds: NaN']) expect(reportedSeconds(bad)).toBeNull();
  });
});

describe('the virtual executor', () => {
  const ws = mkdtempSync(join(tmpdir(), 'virtual-ws-'));
  const logs = mkdtempSync(join(tmpdir(), 'virtual-logs-'));
  const launch = jobLauncher({ sandbox: 'off', python: 'unused', kernelDir: 'unused', sandboxRoot: 'unused', keyOf: (s) => s, workspaceOf: () => ws, judge: () => { throw new Error('no judge runs here'); } });
  const run = (command: string) => {
    const onStarted = jest.fn(async () => undefined);
    const onEnded = jest.fn(async () => undefined);
    const { runJob } = createVirtualJobActivities({ cpus: 1, logFile: (s, j) => join(logs, s, `${j}.log`), launch, env: process.env, onStarted, onEnded });
    const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
    const input: RunJobInput = { sessionId: 's', jobId: `job-${Math.floor(Math.random() * 1e6)}`, cpus: 1, seeds: [], timeoutSeconds: null, command };
    return { onStarted, onEnded, result: env.run<[RunJobInput], RunJobResult, typeof runJob>(runJob, input) };
  };

  it('runs the job for real and gives the run time it reports, leaving its end to the job workflow\'s clock', async () => {
    const x = run('echo training; echo "sim_seconds: 5400"');
    expect(await x.result).toMatchObject({ outcome: 'finished', exitCode: 0, seconds: 5400, logTail: 'training\nsim_seconds: 5400\n' });
    expect(x.onStarted).toHaveBeenCalledTimes(1);
    expect(x.onEnded).not.toHaveBeenCalled();
  });

  it('gives a job that reports nothing its real run time', async () => {
    const r = await run('sleep 0.2; exit 3').result;
    expect(r).toMatchObject({ outcome: 'failed', exitCode: 3 });
    expect(r.seconds).toBeGreaterThanOrEqual(0.2);
    expect(r.seconds).toBeLessThan(60);
  });
});
