import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobLauncher, type JobLauncherOptions } from '../../activities/jobs/job-launch';
import type { RunJobInput, RunJobResult } from '../../activities/jobs/run-job';
import { slurmCli, type SlurmClient } from '../../activities/jobs/slurm-cli';
import { createSlurmJobActivities, type Preemption } from '../../activities/jobs/slurm-executor';
import { slurmJobName } from '../../activities/jobs/slurm-script';
import { SLURM_PARTITIONS, slurmReady } from '../../services/devstack/slurm';
import { canSandbox, sandboxFor } from '../helpers/job-sandbox';

/*
 * Against the real one-node Slurm `recur setup --slurm` starts (`npm test` runs it first). Each
 * test's session id is new, so a job name never matches an earlier test's job.
 */

const tmp = (name: string) => mkdtempSync(join(tmpdir(), `slurm-job-${name}-`));
const read = (path: string) => readFileSync(path, 'utf8');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const squeue = (...args: string[]) => execFileSync('squeue', ['-h', '-t', 'all', ...args], { encoding: 'utf8' }).trim();

/** What Slurm says of its node and of every job it holds, with why each waits: a failure names its cause. */
function slurmState(): string {
  const out = (cmd: string, args: string[]) => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8' }).trim();
    } catch (e) {
      return `${cmd} failed: ${(e as Error).message}`;
    }
  };
  return `node: ${out('sinfo', ['-h', '-N', '-o', '%N %T %E'])}\njobs:\n${out('squeue', ['-h', '-o', '%i %j %T %r'])}`;
}

async function waitFor(what: string, ok: () => boolean, ms = 30_000): Promise<void> {
  for (const end = Date.now() + ms; !ok(); await sleep(100)) if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${slurmState()}`);
}

// Test jobs are named for this process (the executor's sessions) or `*-test` (those sbatched here).
const ours = (name: string) => name.includes(`slurm-test-${process.pid}-`) || name.endsWith('-test');
const ourLiveJobs = () => squeue('-t', 'PENDING,RUNNING,SUSPENDED,COMPLETING,CONFIGURING,REQUEUED', '-o', '%i %j').split('\n').filter(Boolean)
  .map((l) => l.split(' ')).filter(([, name]) => ours(name)).map(([id]) => id);

let sessions = 0;

function executor(slurm: SlurmClient = slurmCli(), over: { ws?: string; launch?: JobLauncherOptions } = {}) {
  const ws = over.ws ?? tmp('ws');
  const logs = tmp('logs');
  const sessionId = `slurm-test-${process.pid}-${Date.now()}-${++sessions}`;
  const onStarted = jest.fn(async (_j: RunJobInput) => undefined);
  const onEnded = jest.fn(async (_j: RunJobInput, _r: RunJobResult) => undefined);
  const onPreempted = jest.fn(async (_j: RunJobInput, _p: Preemption) => undefined);
  const launch = jobLauncher(over.launch ?? { sandbox: 'off', python: 'unused', kernelDir: 'unused', sandboxRoot: 'unused', keyOf: (s) => s, workspaceOf: () => ws, judge: () => { throw new Error('no judge runs here'); } });
  const acts = createSlurmJobActivities({
    slurm, partition: null, pollMs: 250, logFile: (s, j) => join(logs, s, `${j}.log`), launch, env: process.env, onStarted, onEnded, onPreempted,
  });
  const start = (job: Partial<RunJobInput> & { command: string }) => {
    const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
    const input: RunJobInput = { sessionId, jobId: 'job-1', cpus: 1, seeds: [], timeoutSeconds: null, ...job };
    return { env, input, result: env.run<[RunJobInput], RunJobResult, typeof acts.runJob>(acts.runJob, input) };
  };
  /** The Slurm jobs submitted under a job's name, and their states. */
  const slurmJobs = (jobId = 'job-1') => squeue('-n', slurmJobName(sessionId, jobId), '-o', '%i %T').split('\n').filter(Boolean);
  return { ws, sessionId, onStarted, onEnded, onPreempted, start, slurmJobs, cancelJob: acts.cancelJob };
}

beforeAll(() => {
  if (!slurmReady()) throw new Error(`no Slurm answers here: as root on Debian, \`recur setup --slurm\` (or \`npm test\`) installs and starts a one-node cluster\n${slurmState()}`);
});

// A test that fails midway leaves its jobs holding the node's CPUs: cancelled here, so the next test starts on an empty node.
afterEach(async () => {
  const left = ourLiveJobs();
  if (left.length > 0) execFileSync('scancel', left);
  await waitFor('the tests\' jobs to leave the node', () => ourLiveJobs().length === 0);
});

describe('the Slurm executor', () => {
  it('finishes a job that exits 0, with its output as the result, reported started then ended', async () => {
    const x = executor();
    const r = await x.start({ command: 'echo out; echo err >&2' }).result;
    expect(r).toMatchObject({ outcome: 'finished', exitCode: 0, reason: '', logTail: 'out\nerr\n', preemptions: 0 });
    expect(x.onStarted).toHaveBeenCalledTimes(1);
    expect(x.onEnded).toHaveBeenCalledWith(expect.objectContaining({ jobId: 'job-1' }), r);
    expect(x.onEnded.mock.invocationCallOrder[0]).toBeGreaterThan(x.onStarted.mock.invocationCallOrder[0]);
    expect(x.slurmJobs()).toEqual([expect.stringMatching(/^\d+ COMPLETED$/)]);
  });

  it('fails with the exit code of a job that exits non-zero', async () => {
    const x = executor();
    const r = await x.start({ command: 'echo bad; exit 3' }).result;
    expect(r).toMatchObject({ outcome: 'failed', exitCode: 3, reason: 'exited 3', logTail: 'bad\n' });
  });

  it('runs once per seed, in order, with RECUR_SEED, and stops at the first that fails', async () => {
    const x = executor();
    const r = await x.start({ command: 'echo "ran $RECUR_SEED" | tee -a seeds.txt; [ "$RECUR_SEED" != 2 ] || exit 5', seeds: [3, 2, 1] }).result;
    expect(r).toMatchObject({ outcome: 'failed', exitCode: 5, reason: 'exited 5 on seed 2' });
    expect(read(join(x.ws, 'seeds.txt'))).toBe('ran 3\nran 2\n');
    expect(r.logTail).toBe('== seed 3 ==\nran 3\n== seed 2 ==\nran 2\n');
  });

  it('kills a job at its timeout, to the second rather than Slurm\'s whole minute', async () => {
    const x = executor();
    const r = await x.start({ command: 'echo started; sleep 120', timeoutSeconds: 2 }).result;
    expect(r).toMatchObject({ outcome: 'timed_out', exitCode: null, reason: 'killed after its 2 s timeout' });
    expect(r.seconds).toBeGreaterThanOrEqual(2);
    expect(r.seconds).toBeLessThan(15);
    expect(r.logTail).toContain('started');
    expect(x.slurmJobs()).toEqual([expect.stringMatching(/ CANCELLED$/)]);
  });

  it('a job cancelled by its workflow, or by cancelJob, is scancelled and resolves cancelled', async () => {
    const x = executor();
    const one = x.start({ jobId: 'job-1', command: 'sleep 120' });
    const two = x.start({ jobId: 'job-2', command: 'sleep 120' });
    await waitFor('both to start', () => x.onStarted.mock.calls.length === 2);
    one.env.cancel('CANCELLED');
    await x.cancelJob({ sessionId: x.sessionId, jobId: 'job-2' });
    for (const r of [await one.result, await two.result]) {
      expect(r).toMatchObject({ outcome: 'cancelled', exitCode: null, reason: 'cancelled' });
      expect(r.seconds).toBeLessThan(15);
    }
    expect([...x.slurmJobs('job-1'), ...x.slurmJobs('job-2')]).toEqual([expect.stringMatching(/ CANCELLED$/), expect.stringMatching(/ CANCELLED$/)]);
  });

  it('a job cancelled while Slurm holds it pending never starts: cancelled before it started, no start reported', async () => {
    const x = executor();
    const all = cpus().length;
    // One CPU held by another job: the job asking for all of them waits.
    const blocker = execFileSync('sbatch', ['--parsable', '--cpus-per-task=1', '--job-name=blocker-test', '--output=/dev/null', '--wrap=sleep 60'], { encoding: 'utf8' }).trim();
    try {
      await waitFor('the blocker to run', () => squeue('-j', blocker, '-o', '%T') === 'RUNNING');
      const job = x.start({ command: 'touch ran', cpus: all });
      await waitFor('the job to be pending', () => x.slurmJobs().some((l) => l.endsWith(' PENDING')));
      job.env.cancel('CANCELLED');
      expect(await job.result).toMatchObject({ outcome: 'cancelled', seconds: 0, reason: 'cancelled before it started' });
      expect(x.onStarted).not.toHaveBeenCalled();
      expect(x.slurmJobs()).toEqual([expect.stringMatching(/ CANCELLED$/)]);
    } finally {
      execFileSync('scancel', [blocker]);
    }
  });

  it('a job preempted by a higher-priority partition\'s job is requeued, reported, and its result is the final run\'s alone', async () => {
    const x = executor();
    // All the node's CPUs, so the urgent job can only run by preempting it.
    const all = cpus().length;
    const job = x.start({ command: 'echo "trial on run $SLURM_RESTART_COUNT"; sleep 4; echo "trial done"', cpus: all });
    await waitFor('the job to start', () => x.onStarted.mock.calls.length === 1);
    execFileSync('sbatch', ['--parsable', `--partition=${SLURM_PARTITIONS.urgent}`, `--cpus-per-task=${all}`, '--job-name=urgent-test', '--output=/dev/null', '--wrap=sleep 1']);
    const r = await job.result;
    expect(r).toMatchObject({ outcome: 'finished', exitCode: 0 });
    expect(r.preemptions).toBeGreaterThanOrEqual(1);
    expect(x.onPreempted).toHaveBeenCalledWith(expect.objectContaining({ jobId: 'job-1' }), expect.objectContaining({ requeued: true, reason: 'preempted by a higher-priority job' }));
    // The partial run's trial is not in the result: only the requeued run's.
    expect(r.logTail).not.toContain('trial on run 0');
    expect(r.logTail).toMatch(/trial on run [1-9]\d*\ntrial done\n$/);
    expect(x.onStarted).toHaveBeenCalledTimes(1);
    // One Slurm job throughout, requeued in place.
    expect(x.slurmJobs()).toEqual([expect.stringMatching(/ COMPLETED$/)]);
  });

  it('a worker shutting down leaves the Slurm job running, and the retried runJob adopts it instead of submitting another', async () => {
    const x = executor();
    const command = 'echo once >> runs.txt; sleep 3; echo done';
    const first = x.start({ command });
    await waitFor('the job to start', () => x.onStarted.mock.calls.length === 1);
    first.env.cancel('WORKER_SHUTDOWN');
    await expect(first.result).rejects.toBeInstanceOf(CancelledFailure);
    expect(x.slurmJobs()).toEqual([expect.stringMatching(/ RUNNING$/)]);
    const retried = await x.start({ command }).result;
    expect(retried).toMatchObject({ outcome: 'finished', logTail: 'done\n' });
    expect(read(join(x.ws, 'runs.txt'))).toBe('once\n');
    expect(x.slurmJobs()).toEqual([expect.stringMatching(/ COMPLETED$/)]);
    // A retry after the end adopts the ended job too: its result, no second run.
    expect(await x.start({ command }).result).toMatchObject({ outcome: 'finished' });
    expect(read(join(x.ws, 'runs.txt'))).toBe('once\n');
    expect(x.slurmJobs()).toHaveLength(1);
  });

  it('a controller that does not answer for a moment does not end the job', async () => {
    const real = slurmCli();
    let shows = 0;
    const x = executor({ ...real, show: (id) => (++shows >= 2 && shows <= 4 ? Promise.reject(new Error('scontrol: Unable to contact slurm controller')) : real.show(id)) });
    const r = await x.start({ command: 'sleep 2; echo survived' }).result;
    expect(shows).toBeGreaterThan(4);
    expect(r).toMatchObject({ outcome: 'finished', logTail: 'survived\n' });
  });

  (canSandbox ? it : it.skip)('runs the same sandboxed launch line as the local executor: in the workspace, as the kernel\'s uid, nothing outside its mounts', async () => {
    const outer = tmp('outer');
    const ws = join(outer, 'ws');
    mkdirSync(ws);
    const secret = join(outer, 'secret.txt');
    writeFileSync(secret, 'SECRET-CONTENT\n');
    const x = executor(slurmCli(), { ws, launch: sandboxFor(ws) });
    const r = await x.start({ command: `pwd; id -u > made.txt; cat ${secret} 2>/dev/null || echo no-secret; echo "seed=$RECUR_SEED"`, seeds: [4] }).result;
    expect(r).toMatchObject({ outcome: 'finished', exitCode: 0 });
    expect(r.logTail).toBe(`== seed 4 ==\n${ws}\nno-secret\nseed=4\n`);
    const uid = Number(read(join(ws, 'made.txt')));
    expect(uid).toBeGreaterThanOrEqual(2 ** 30);
    expect(statSync(join(ws, 'made.txt')).uid).toBe(uid);
  });

  it('a job Slurm refuses (more CPUs than the cluster has) ends failed, saying why', async () => {
    const x = executor();
    const r = await x.start({ command: 'true', cpus: 4096 }).result;
    expect(r).toMatchObject({ outcome: 'failed', exitCode: null, preemptions: 0 });
    expect(r.reason).toMatch(/^Slurm could not run it: sbatch/);
    expect(x.onEnded).toHaveBeenCalledTimes(1);
  });
});
