import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecurError } from '../../errors';
import { jobLauncher } from '../../activities/jobs/job-launch';
import { JOB_LOG_TAIL } from '../../schemas/field-limits';
import { createJobActivities, type JobDeps, type RunJobInput, type RunJobResult } from '../../activities/jobs/run-job';
import { canSandbox, sandboxFor } from '../helpers/job-sandbox';

const tmp = (name: string) => mkdtempSync(join(tmpdir(), `run-job-${name}-`));
const read = (path: string) => readFileSync(path, 'utf8');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, ok: () => boolean, ms = 5_000): Promise<void> {
  for (const end = Date.now() + ms; !ok(); await sleep(20)) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** An executor with `cpus` slots whose jobs run unsandboxed in `ws`; `launch` overrides how. */
function executor(cpus: number, over: Partial<JobDeps> & { ws?: string } = {}) {
  const ws = over.ws ?? tmp('ws');
  const logs = tmp('logs');
  /** The reports in the order the executor made them: `started job-1`, `ended job-1 finished`. */
  const reports: string[] = [];
  const onStarted = jest.fn(async (j: RunJobInput) => void reports.push(`started ${j.jobId}`));
  const onEnded = jest.fn(async (j: RunJobInput, r: RunJobResult) => void reports.push(`ended ${j.jobId} ${r.outcome}`));
  const launch = jobLauncher({ sandbox: 'off', python: 'unused', kernelDir: 'unused', sandboxRoot: 'unused', keyOf: (s) => s, workspaceOf: () => ws, judge: () => { throw new Error('no judge runs here'); } });
  const { runJob, cancelJob } = createJobActivities({ cpus, logFile: (s, j) => join(logs, s, `${j}.log`), launch, env: process.env, onStarted, onEnded, ...over });
  /** Starts a job in its own activity context; `queued` resolves once it is waiting for its slots (its first heartbeat). */
  const start = (job: Partial<RunJobInput> & { command: string }) => {
    const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
    const queued = new Promise((resolve) => env.once('heartbeat', resolve));
    const input: RunJobInput = { sessionId: 's', jobId: 'job-1', cpus: 1, seeds: [], timeoutSeconds: null, ...job };
    return { env, queued, result: env.run<[RunJobInput], RunJobResult, typeof runJob>(runJob, input) };
  };
  return { ws, logOf: (jobId = 'job-1') => join(logs, 's', `${jobId}.log`), onStarted, reports, start, cancelJob };
}

describe('runJob', () => {
  it('finishes a job that exits 0, with its output in the log and onStarted called once', async () => {
    const x = executor(2);
    const r = await x.start({ command: 'echo out; echo err >&2' }).result;
    expect(r).toMatchObject({ outcome: 'finished', exitCode: 0, reason: '', logTail: 'out\nerr\n', preemptions: 0 });
    expect(r.seconds).toBeGreaterThan(0);
    expect(read(x.logOf())).toBe('out\nerr\n');
    expect(x.onStarted).toHaveBeenCalledTimes(1);
    expect(x.onStarted).toHaveBeenCalledWith(expect.objectContaining({ jobId: 'job-1', command: 'echo out; echo err >&2' }));
  });

  it('fails with the exit code of a run that exits non-zero, and keeps only the tail of a long log', async () => {
    const x = executor(1);
    const r = await x.start({ command: `head -c ${JOB_LOG_TAIL * 3} /dev/zero | tr '\\0' a; echo END; exit 3` }).result;
    expect(r).toMatchObject({ outcome: 'failed', exitCode: 3, reason: 'exited 3' });
    expect(r.logTail).toHaveLength(JOB_LOG_TAIL);
    expect(r.logTail.endsWith('aaaEND\n')).toBe(true);
  });

  it('runs once per seed, in order, with RECUR_SEED, each under a header', async () => {
    const x = executor(1);
    const r = await x.start({ command: 'echo "ran $RECUR_SEED" | tee -a seeds.txt', seeds: [3, 1, 2] }).result;
    expect(r).toMatchObject({ outcome: 'finished', exitCode: 0 });
    expect(read(join(x.ws, 'seeds.txt'))).toBe('ran 3\nran 1\nran 2\n');
    expect(read(x.logOf())).toBe('== seed 3 ==\nran 3\n== seed 1 ==\nran 1\n== seed 2 ==\nran 2\n');
  });

  it('stops at the first seed that fails: later seeds do not run', async () => {
    const x = executor(1);
    const r = await x.start({ command: 'echo "ran $RECUR_SEED" >> seeds.txt; [ "$RECUR_SEED" != 2 ] || exit 5', seeds: [1, 2, 3] }).result;
    expect(r).toMatchObject({ outcome: 'failed', exitCode: 5, reason: 'exited 5 on seed 2' });
    expect(read(join(x.ws, 'seeds.txt'))).toBe('ran 1\nran 2\n');
    expect(read(x.logOf())).not.toContain('seed 3');
  });

  it('kills the job and its children at its timeout', async () => {
    const x = executor(1);
    const r = await x.start({ command: 'echo started; sleep 30 & echo $! > child.pid; wait', timeoutSeconds: 1 }).result;
    expect(r).toMatchObject({ outcome: 'timed_out', exitCode: null, reason: 'killed after its 1 s timeout' });
    expect(r.seconds).toBeGreaterThanOrEqual(1);
    expect(r.seconds).toBeLessThan(10);
    expect(r.logTail).toContain('started');
    const child = Number(read(join(x.ws, 'child.pid')));
    await waitFor('the child to be gone', () => !alive(child));
    expect(() => process.kill(child, 0)).toThrow();
  });

  it('a running job cancelled by its workflow is killed, children too, and resolves cancelled', async () => {
    const x = executor(1);
    const job = x.start({ command: 'sleep 30 & echo $! > child.pid; wait' });
    await waitFor('the job to start', () => existsSync(join(x.ws, 'child.pid')) && read(join(x.ws, 'child.pid')).endsWith('\n'));
    const child = Number(read(join(x.ws, 'child.pid')));
    expect(alive(child)).toBe(true);
   
    job.env.cancel('CANCELLED');
    const r = await job.result;
    expect(r).toMatchObject({ outcome: 'cancelled', exitCode: null, reason: 'cancelled' });
    expect(r.seconds).toBeLessThan(10);
    await waitFor('the child to be gone', () => !alive(child));
  });

  it('a worker shutting down kills the job and rethrows, so it is not reported as cancelled by its agent', async () => {
    const x = executor(1);
    const job = x.start({ command: 'sleep 30 & echo $! > child.pid; wait' });
    await waitFor('the job to start', () => existsSync(join(x.ws, 'child.pid')) && read(join(x.ws, 'child.pid')).endsWith('\n'));
    const child = Number(read(join(x.ws, 'child.pid')));
    job.env.cancel('WORKER_SHUTDOWN');
    await expect(job.result).rejects.toBeInstanceOf(CancelledFailure);
    await waitFor('the child to be gone', () => !alive(child));
  });

  it('a queued job cancelled leaves the queue without running, and its slots were never taken', async () => {
    const x = executor(1);
    const first = x.start({ jobId: 'job-1', command: 'sleep 30' });
    await waitFor('the first job to start', () => x.onStarted.mock.calls.length === 1);
    const second = x.start({ jobId: 'job-2', command: 'touch ran-2' });
    await second.queued;
    second.env.cancel('CANCELLED');
    expect(await second.result).toEqual({ outcome: 'cancelled', exitCode: null, seconds: 0, logTail: '', reason: 'cancelled before it started', preemptions: 0 });
    first.env.cancel('CANCELLED');
    expect(await first.result).toMatchObject({ outcome: 'cancelled' });
    // Both slots' holders are gone: the next job starts at once.
    expect(await x.start({ jobId: 'job-3', command: 'echo three' }).result).toMatchObject({ outcome: 'finished', logTail: 'three\n' });
    expect(existsSync(join(x.ws, 'ran-2'))).toBe(false);
    expect(x.onStarted.mock.calls.map(([j]) => j.jobId)).toEqual(['job-1', 'job-3']);
  });

  const stamp = (name: string, ms: number) => `date +%s%N > ${name}.start; sleep ${ms / 1000}; date +%s%N > ${name}.end`;
  const at = (ws: string, file: string) => BigInt(read(join(ws, file)).trim());

  it('a job waits until the CPU slots it needs are free', async () => {
    const x = executor(2);
    const a = x.start({ jobId: 'job-1', cpus: 2, command: stamp('a', 500) });
    await a.queued;
    const b = x.start({ jobId: 'job-2', cpus: 2, command: stamp('b', 0) });
    await Promise.all([a.result, b.result]);
    expect(at(x.ws, 'b.start')).toBeGreaterThanOrEqual(at(x.ws, 'a.end'));
    // The first job's end is reported before its slots pass on: the log never shows the second start first.
    expect(x.reports).toEqual(['started job-1', 'ended job-1 finished', 'started job-2', 'ended job-2 finished']);
  });

  it('cancelJob stops a running job and a queued one at once, with no cancellation from Temporal; an unknown job is a no-op', async () => {
    const x = executor(1);
    const first = x.start({ jobId: 'job-1', command: 'sleep 30 & echo $! > child.pid; wait' });
    await waitFor('the job to start', () => existsSync(join(x.ws, 'child.pid')) && read(join(x.ws, 'child.pid')).endsWith('\n'));
    const child = Number(read(join(x.ws, 'child.pid')));
    const second = x.start({ jobId: 'job-2', command: 'touch ran-2' });
    await second.queued;
    await x.cancelJob({ sessionId: 's', jobId: 'job-9' });
    await x.cancelJob({ sessionId: 's', jobId: 'job-2' });
    expect(await second.result).toMatchObject({ outcome: 'cancelled', reason: 'cancelled before it started', preemptions: 0 });
    await x.cancelJob({ sessionId: 's', jobId: 'job-1' });
    expect(await first.result).toMatchObject({ outcome: 'cancelled', exitCode: null });
    await waitFor('the child to be gone', () => !alive(child));
    expect(existsSync(join(x.ws, 'ran-2'))).toBe(false);
    expect([...x.reports].sort()).toEqual(['ended job-1 cancelled', 'ended job-2 cancelled', 'started job-1']);
  });

  it('grants slots in arrival order: a small job does not overtake a larger one waiting before it', async () => {
    const x = executor(2);
    const a = x.start({ jobId: 'job-1', cpus: 1, command: stamp('a', 700) });
    await waitFor('the first job to start', () => x.onStarted.mock.calls.length === 1);
    const b = x.start({ jobId: 'job-2', cpus: 2, command: stamp('b', 300) });
    await b.queued;
    // One slot is free, but job-2 came first and needs two.
    const c = x.start({ jobId: 'job-3', cpus: 1, command: stamp('c', 0) });
    await Promise.all([a.result, b.result, c.result]);
    expect(at(x.ws, 'b.start')).toBeGreaterThanOrEqual(at(x.ws, 'a.end'));
    expect(at(x.ws, 'c.start')).toBeGreaterThanOrEqual(at(x.ws, 'b.end'));
  });

  it('refuses, not retryably, a job asking for more CPU slots than the pool has', async () => {
    const x = executor(2);
    const err = await x.start({ cpus: 3, command: 'true' }).result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecurError);
    expect(err).toMatchObject({ retryable: false });
  });
});

describe('jobLauncher', () => {
  it('unsandboxed: bash in the workspace, without the worker\'s secret-looking variables', async () => {
    const x = executor(1, { env: { ...process.env, RECUR_TEST_SECRET_TOKEN: 'hunter2', RECUR_TEST_PLAIN: 'kept' } });
    const r = await x.start({ command: 'pwd; echo "token=${RECUR_TEST_SECRET_TOKEN:-none} plain=$RECUR_TEST_PLAIN"' }).result;
    expect(r.logTail).toBe(`${x.ws}\ntoken=none plain=kept\n`);
  });

  it('sandboxed: the venv\'s python runs recur_jupyter.job from the kernel directory', async () => {
    const launch = jobLauncher({
      sandbox: 'on', python: '/v/bin/python', kernelDir: '/repo/kernel', sandboxRoot: '/h/run/sb', keyOf: (s) => `key-${s}`, workspaceOf: (s) => `/ws/${s}`,
      judge: async (run) => ({ argv: ['judge', run.task, String(run.trials), run.source.sha256], cwd: '/tasks' }),
    });
    const job = { sessionId: 's', jobId: 'job-1', cpus: 1, seeds: [], timeoutSeconds: null };
    expect(await launch({ ...job, command: 'make -j4' })).toEqual({
      argv: ['/v/bin/python', '-m', 'recur_jupyter.job', '/h/run/sb', 'key-s', '--', 'bash', '-c', 'make -j4'],
      cwd: '/repo/kernel',
    });
    // A research experiment runs the task's judge (host code reading the workspace as text), never the command it shows.
    const judge = { task: 'nqm-speedrun', problem: 'small', trials: 1, against: null, scaleUp: false, source: { sha256: 'a'.repeat(64), size: 10 } };
    expect(await launch({ ...job, command: 'rm -rf /', judge })).toEqual({ argv: ['judge', 'nqm-speedrun', '1', 'a'.repeat(64)], cwd: '/tasks' });
  });
});

/** Host processes whose command line is exactly `argv`. */
const processesRunning = (argv: string[]) => readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
  try {
    return readFileSync(`/proc/${p}/cmdline`, 'utf8') === `${argv.join('\0')}\0`;
  } catch {
    return false;
  }
});

describe('a sandboxed job (bubblewrap, run as root)', () => {
  const sandboxedIt = (title: string, fn: () => Promise<void>) =>
    (canSandbox ? it : it.skip)(canSandbox ? title : `${title} (skipped: needs bwrap on PATH and root)`, fn);

  sandboxedIt('runs in its workspace as the kernel\'s uid, and reads nothing outside its mounts and reaches no network', async () => {
    const outer = tmp('outer');
    const ws = join(outer, 'ws');
    mkdirSync(ws);
    const secret = join(outer, 'secret.txt');
    writeFileSync(secret, 'SECRET-CONTENT\n');
    const o = sandboxFor(ws);
    const server = createServer((socket) => {
      // bash opens the connection and closes it unread: the reset that follows is the check working, not a fault.
      socket.on('error', () => undefined);
      socket.end('hello\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const command = [
      'pwd; id -u > made.txt',
      `cat ${secret} 2>/dev/null && echo READ-SECRET || echo no-secret`,
      `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo NET-OK || echo no-net`,
      'echo "seed=$RECUR_SEED token=${RECUR_TEST_SECRET_TOKEN:-none}"',
    ].join('\n');
    const env = { ...process.env, RECUR_TEST_SECRET_TOKEN: 'hunter2' };
    try {
      const inside = await executor(1, { ws, env, launch: jobLauncher(o) }).start({ command, seeds: [4] }).result;
      expect(inside).toMatchObject({ outcome: 'finished', exitCode: 0 });
      expect(inside.logTail).toBe(`== seed 4 ==\n${ws}\nno-secret\nno-net\nseed=4 token=none\n`);
      // Written in the workspace, as the kernel's uid (not root).
      const uid = Number(read(join(ws, 'made.txt')));
      expect(uid).toBeGreaterThanOrEqual(2 ** 30);
      expect(statSync(join(ws, 'made.txt')).uid).toBe(uid);
      // The same command unsandboxed reads the file and reaches the server: the checks above can fail.
      const bare = await executor(1, { ws, env, launch: jobLauncher({ ...o, sandbox: 'off' }) }).start({ command, seeds: [4] }).result;
      expect(bare.logTail).toContain('SECRET-CONTENT\nREAD-SECRET\nNET-OK\n');
    } finally {
      server.close();
    }
  });

  sandboxedIt('is killed whole at its timeout: nothing of it is left inside its PID namespace', async () => {
    const ws = tmp('ws');
    const marker = ['sleep', '30.4242'];
    const job = executor(1, { ws, launch: jobLauncher(sandboxFor(ws)) }).start({ command: `${marker.join(' ')} & ${marker.join(' ')}`, timeoutSeconds: 2 });
    await waitFor('both sandboxed sleeps to run', () => processesRunning(marker).length === 2);
    const r = await job.result;
    expect(r).toMatchObject({ outcome: 'timed_out', exitCode: null });
    await waitFor('the sandboxed sleeps to be gone', () => processesRunning(marker).length === 0);
  });
});
