import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive, isOurs, readPid } from '../../services/home/process';
import { nextRestartDelay } from '../../services/daemon/restart-delay';
import { createWorkerSupervisor, type WorkerSupervisor } from '../../services/daemon/worker-supervisor';

/** Polls until `check` holds; the test's own timeout is the only limit. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(20);
}

describe('nextRestartDelay', () => {
  it('starts at 0.5 s, doubles per quick crash up to 10 s, and resets after a minute of uptime', () => {
    const delays: number[] = [];
    let d: number | null = null;
    for (let i = 0; i < 7; i++) delays.push((d = nextRestartDelay(d, 1000)));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 10000, 10000]);
    expect(nextRestartDelay(10000, 60_000)).toBe(500);
    expect(nextRestartDelay(10000, 59_999)).toBe(10000);
  });
});

describe('worker supervisor (real processes)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'recur-supervisor-'));
  const pidFile = join(dir, 'run', 'worker.pid');
  const logFile = join(dir, 'logs', 'worker.log');
  const lines: string[] = [];
  let supervisor: WorkerSupervisor | undefined;

  afterEach(async () => {
    await supervisor?.stop();
    supervisor = undefined;
  });

  const start = (script: string, graceMs = 5000): WorkerSupervisor => {
    supervisor = createWorkerSupervisor({
      command: { cmd: process.execPath, args: ['-e', script] },
      successorEnv: (pid) => ({ REPLACES: `dead ${pid}` }),
      env: { ...process.env, DUMMY_WORKER: '1' },
      logFile, pidFile, graceMs,
      policy: { initialMs: 50, maxMs: 200, resetAfterMs: 60_000 },
      log: (line) => lines.push(line),
    });
    supervisor.start();
    return supervisor;
  };

  it('restarts a SIGKILLed worker with a new pid, records it, and stops it on shutdown', async () => {
    const s = start("console.log('worker up', process.env.DUMMY_WORKER); setInterval(() => {}, 1000)");
    const first = s.state();
    expect(first).toEqual({ pid: expect.any(Number), restarts: 0, alive: true });
    expect(readPid(pidFile)).toMatchObject({ pid: first.pid });
    expect(isOurs(readPid(pidFile)!)).toBe(true);

    const ups = (): number => (readFileSync(logFile, 'utf8').match(/worker up 1/g) ?? []).length;
    await until(() => ups() === 1);
    process.kill(first.pid!, 'SIGKILL');
    await until(() => s.state().alive && s.state().pid !== first.pid);
    const second = s.state();
    expect(second.restarts).toBe(1);
    expect(isAlive(first.pid!)).toBe(false);
    expect(readPid(pidFile)).toMatchObject({ pid: second.pid });
    expect(lines.some((l) => l.includes(`pid ${first.pid}) exited with signal SIGKILL`) && l.includes('restart #1'))).toBe(true);

    await until(() => ups() === 2); // the second run got the daemon's environment and shares the log
    await s.stop();
    expect(isAlive(second.pid!)).toBe(false);
    expect(s.state()).toEqual({ pid: null, restarts: 1, alive: false });
    expect(existsSync(pidFile)).toBe(false);
    await sleep(300); // longer than any restart delay: nothing comes back after stop
    expect(s.state().pid).toBeNull();
  });

  it('names the worker that died to the one started in its place, and only to that one', async () => {
    const s = start("console.log('replaces', process.env.REPLACES ?? 'nobody', process.env.DUMMY_WORKER); setInterval(() => {}, 1000)");
    const first = s.state().pid!;
    const runs = (): string[] => readFileSync(logFile, 'utf8').split('\n').filter((l) => l.startsWith('replaces '));
    await until(() => runs().length === 1);
    expect(runs()[0]).toBe('replaces nobody 1');
    process.kill(first, 'SIGKILL');
    await until(() => runs().length === 2);
    expect(runs()[1]).toBe(`replaces dead ${first} 1`); // on top of the daemon's environment
  });

  it('SIGKILLs a worker that ignores SIGTERM once the grace period is over', async () => {
    const s = start("process.on('SIGTERM', () => console.log('ignoring SIGTERM')); console.log('ready'); setInterval(() => {}, 1000)", 300);
    const { pid } = s.state();
    await until(() => readFileSync(logFile, 'utf8').includes('ready'));
    await s.stop();
    expect(isAlive(pid!)).toBe(false);
    expect(readFileSync(logFile, 'utf8')).toContain('ignoring SIGTERM');
  });

  it('keeps retrying a worker command that cannot be spawned', async () => {
    supervisor = createWorkerSupervisor({
      command: { cmd: join(dir, 'no-such-worker'), args: [] }, env: {}, logFile, pidFile,
      policy: { initialMs: 20, maxMs: 50, resetAfterMs: 60_000 }, log: (line) => lines.push(line),
    });
    supervisor.start();
    await until(() => supervisor!.state().restarts >= 2);
    expect(supervisor.state()).toMatchObject({ alive: false });
    expect(lines.some((l) => l.includes('exited with error: spawn') && l.includes('ENOENT'))).toBe(true);
  });

  it('keeps restarting a worker that exits at once, counting each restart', async () => {
    const s = start('process.exit(3)');
    await until(() => s.state().restarts >= 3);
    expect(lines.filter((l) => l.includes('exited with code 3')).length).toBeGreaterThanOrEqual(3);
  });
});
