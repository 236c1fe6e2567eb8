import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createKernelClient, type KernelClient } from '../../activities/kernel';
import { loadConfig } from '../../config';
import { jupyterConnection } from '../../config/home-paths';
import { repoRoot } from '../../services/home/repo-root';
import { createKernelHost } from '../../services/sandbox';

/**
 * A worker that dies mid-cell is a kernel client that goes away while its kernel keeps running.
 * The next client must find out what became of the cell from the kernel alone, never running
 * it a second time.
 */
describe('resuming a cell after its client is gone (real Jupyter kernels)', () => {
  const connection = jupyterConnection(loadConfig());
  const clients: KernelClient[] = [];
  const sessions: string[] = [];
  const newClient = () => {
    const c = createKernelClient({ ...connection, host: createKernelHost(loadConfig()), pythonPath: `${repoRoot()}/kernel`, interruptGraceMs: 20_000 });
    clients.push(c);
    return c;
  };
  const readySession = async (c: KernelClient) => {
    const s = `resume-${randomUUID()}`;
    sessions.push(s);
    expect((await c.start(s)).fresh).toBe(true);
    await c.markReady(s);
    return s;
  };

  afterAll(async () => {
    const c = newClient();
    await Promise.all(sessions.map((s) => c.shutdown(s).catch(() => undefined)));
    for (const client of clients) client.dispose();
  });

  test('a cell still running when its client went away is waited for and its output returned; it ran once', async () => {
    const first = newClient();
    const s = await readySession(first);
    const lost = first.execute(s, 'runs = globals().get("runs", 0) + 1\nprint("started", flush=True)\nimport time; time.sleep(2)\nprint("done", runs)\nruns * 10', { cellId: `${s}/1`, timeoutMs: 60_000 });
    lost.catch(() => undefined);
    await sleep(700);
    first.dispose();

    const second = newClient();
    const found = await second.resume(s, `${s}/1`, { timeoutMs: 30_000 });
    expect(found).toMatchObject({ kind: 'finished', result: { status: 'ok', stdout: 'started\ndone 1\n', result: '10' } });
    expect((await second.start(s)).fresh).toBe(false);
    expect((await second.execute(s, 'print(runs)')).stdout).toBe('1\n');
  });

  test('a cell the kernel never received is reported so, and a finished one is found again', async () => {
    const c = newClient();
    const s = await readySession(c);
    await c.execute(s, 'value = 7\nvalue', { cellId: `${s}/1` });
    const other = newClient();
    expect(await other.resume(s, `${s}/2`, { timeoutMs: 10_000 })).toEqual({ kind: 'not-received' });
    expect(await other.resume(s, `${s}/1`, { timeoutMs: 10_000 })).toMatchObject({ kind: 'finished', result: { result: '7' } });
  });

  test('a kernel not yet caught up with the log says so: no agent cell can have run in it', async () => {
    const c = newClient();
    const s = `resume-${randomUUID()}`;
    sessions.push(s);
    await c.start(s);
    expect(await newClient().resume(s, `${s}/1`, { timeoutMs: 10_000 })).toEqual({ kind: 'not-ready', restarted: false });
    expect(await c.resume(`resume-${randomUUID()}`, 'x/1', { timeoutMs: 10_000 })).toEqual({ kind: 'gone' });
  });

  test('a kernel that died after it was caught up reports restarted once the server brings it back', async () => {
    const c = newClient();
    const s = await readySession(c);
    // Its pid in the sandbox is not the host's: the kernel kills itself, just after the cell.
    await c.execute(s, 'import os, threading\nthreading.Timer(0.2, os.kill, (os.getpid(), 9)).start()');
    let found: Awaited<ReturnType<KernelClient['resume']>> | undefined;
    for (let i = 0; i < 40 && !found; i++) {
      await sleep(500);
      found = await newClient().resume(s, `${s}/9`, { timeoutMs: 10_000 }).catch(() => undefined);
    }
    expect(found).toEqual({ kind: 'not-ready', restarted: true });
  });

  test('a cell past its time when asked about is interrupted and reported timed out; the kernel keeps its state', async () => {
    const first = newClient();
    const s = await readySession(first);
    await first.execute(s, 'kept = 5');
    const lost = first.execute(s, 'import time\nwhile True: time.sleep(0.05)', { cellId: `${s}/2`, timeoutMs: 120_000 });
    lost.catch(() => undefined);
    await sleep(500);
    first.dispose();
    const second = newClient();
    const found = await second.resume(s, `${s}/2`, { timeoutMs: 1_500 });
    expect(found).toMatchObject({ kind: 'finished', result: { status: 'timeout', error: { ename: 'KeyboardInterrupt' } } });
    await second.start(s);
    expect((await second.execute(s, 'print(kept)')).stdout).toBe('5\n');
  });
});
