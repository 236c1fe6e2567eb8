import { randomUUID } from 'node:crypto';
import { KernelAPI, ServerConnection } from '@jupyterlab/services';
import { createKernelClient, type KernelClient } from '../../activities/kernel';
import { loadConfig } from '../../config';
import { KernelLostError } from '../../errors';
import { jupyterConnection } from '../../config/home-paths';
import { createKernelHost } from '../../services/sandbox';

const ANSI = /\x1b\[/;
const newSession = () => `kx-${randomUUID()}`;

describe('kernel client on a real Jupyter server', () => {
  let client: KernelClient;
  const started: string[] = [];
  // As the cell activity does: a new namespace is marked caught up before agent cells run in it.
  const start = async (sessionId = newSession()) => {
    started.push(sessionId);
    await client.start(sessionId);
    await client.markReady(sessionId);
    return sessionId;
  };

  beforeAll(() => {
    client = createKernelClient({ ...jupyterConnection(loadConfig()), host: createKernelHost(loadConfig()), interruptGraceMs: 20_000 });
  });
  afterAll(async () => {
    await Promise.all(started.map((s) => client.shutdown(s).catch(() => undefined)));
    client.dispose();
  });

  test('captures stdout, the last expression and displays of a cell', async () => {
    const s = await start();
    const r = await client.execute(s, 'print("hello")\nfrom IPython.display import display\ndisplay({"a": 1}, raw=False)\n6 * 7');
    expect(r.status).toBe('ok');
    expect(r.stdout).toBe('hello\n');
    expect(r.result).toBe('42');
    expect(r.displays).toHaveLength(1);
    expect(r.error).toBeNull();
    expect(r.executionCount).toBe(1);
  });

  test('start() env reaches the kernel through the bootstrap, and the binding is readable in the kernel', async () => {
    const s = newSession();
    started.push(s);
    expect(await client.start(s, { env: { RECUR_EXAMPLE: 'yes' } })).toMatchObject({ sessionId: s, fresh: true });
    const r = await client.execute(s, 'import os, recur_kernel\nprint(os.environ["RECUR_EXAMPLE"], recur_kernel.binding_info().data["session_id"])');
    expect(r.stdout).toBe(`yes ${s}\n`);
    expect((await client.start(s)).fresh).toBe(false);
  });

  test('a raising cell returns its traceback without ANSI codes', async () => {
    const s = await start();
    const r = await client.execute(s, 'def f():\n    raise ValueError("bad input")\nf()');
    expect(r.status).toBe('error');
    expect(r.error).toMatchObject({ ename: 'ValueError', evalue: 'bad input' });
    expect(r.error!.traceback).toContain('raise ValueError("bad input")');
    expect(r.error!.traceback).not.toMatch(ANSI);
  });

  test('an endless cell times out, is interrupted, and the kernel keeps its variables', async () => {
    const s = await start();
    await client.execute(s, 'kept = 41');
    const r = await client.execute(s, 'print("before", flush=True)\nwhile True: pass', { timeoutMs: 1500 });
    expect(r.status).toBe('timeout');
    expect(r.stdout).toContain('before');
    expect(r.error?.ename).toBe('KeyboardInterrupt');
    const next = await client.execute(s, 'kept + 1');
    expect(next).toMatchObject({ status: 'ok', result: '42' });
  });

  test('interrupt() stops a running cell and reports it as interrupted', async () => {
    const s = await start();
    const running = client.execute(s, 'import time\nfor _ in range(600): time.sleep(0.1)');
    await new Promise((r) => setTimeout(r, 1000));
    await client.interrupt(s);
    expect((await running).status).toBe('interrupted');
  });

  test('two sessions get two kernels with separate namespaces', async () => {
    const [a, b] = [await start(), await start()];
    expect(await client.kernelIdOf(a)).not.toBe(await client.kernelIdOf(b));
    await client.execute(a, 'x = "from a"');
    const r = await client.execute(b, 'x');
    expect(r.status).toBe('error');
    expect(r.error?.ename).toBe('NameError');
    expect((await client.execute(a, 'x')).result).toBe("'from a'");
  });

  test('output past the cap is dropped with a note', async () => {
    const small = createKernelClient({ ...jupyterConnection(loadConfig()), host: createKernelHost(loadConfig()), maxOutputChars: 1000 });
    const s = newSession();
    started.push(s);
    try {
      await small.start(s);
      const r = await small.execute(s, 'for i in range(2000): print("line", i)');
      expect(r.status).toBe('ok');
      expect(r.truncated).toBe(true);
      expect(r.stdout.length).toBeLessThan(1200);
      expect(r.stdout).toMatch(/output truncated: \d+ more characters not shown/);
    } finally {
      small.dispose();
    }
  });

  test('a worker restart reattaches to the same live kernel and namespace', async () => {
    const s = await start();
    await client.execute(s, 'survivor = [1, 2, 3]');
    const kernelId = await client.kernelIdOf(s);
    const other = createKernelClient({ ...jupyterConnection(loadConfig()), host: createKernelHost(loadConfig()) });
    try {
      expect(await other.start(s)).toEqual({ sessionId: s, kernelId, fresh: false, restarted: false });
      expect((await other.execute(s, 'sum(survivor)')).result).toBe('6');
    } finally {
      other.dispose();
    }
  });

  test('a kernel that dies mid-cell is a KernelLostError, and its fresh namespace must be restarted explicitly', async () => {
    const s = await start();
    await client.execute(s, 'marker = 1');
    const died = client.execute(s, 'import os, signal\nprint("dying", flush=True)\nos.kill(os.getpid(), signal.SIGKILL)');
    await expect(died).rejects.toBeInstanceOf(KernelLostError);
    await expect(client.execute(s, 'marker')).rejects.toBeInstanceOf(KernelLostError);
    const info = await client.start(s);
    expect(info).toMatchObject({ fresh: true, restarted: true });
    const r = await client.execute(s, 'marker');
    expect(r.error?.ename).toBe('NameError');
  });

  test('a cell that ignores the interrupt gets its kernel restarted and reports KernelLostError', async () => {
    const impatient = createKernelClient({ ...jupyterConnection(loadConfig()), host: createKernelHost(loadConfig()), interruptGraceMs: 1500 });
    const s = newSession();
    started.push(s);
    try {
      await impatient.start(s);
      const stuck = 'import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True: pass';
      await expect(impatient.execute(s, stuck, { timeoutMs: 1000 })).rejects.toThrow(/ignored the interrupt.*namespace lost/);
      expect((await impatient.start(s)).fresh).toBe(true);
      expect((await impatient.execute(s, '1 + 1')).result).toBe('2');
    } finally {
      impatient.dispose();
    }
  });

  test('a kernel deleted behind the client is reported lost, and start() gives a fresh one', async () => {
    const s = await start();
    await client.execute(s, 'gone = True');
    const conn = jupyterConnection(loadConfig());
    await KernelAPI.shutdownKernel((await client.kernelIdOf(s))!, ServerConnection.makeSettings(conn));
    await expect(client.execute(s, 'gone', { timeoutMs: 3000 })).rejects.toBeInstanceOf(KernelLostError);
    expect((await client.start(s)).fresh).toBe(true);
    expect((await client.execute(s, 'gone')).error?.ename).toBe('NameError');
  });

  // Another Jupyter client (a user's notebook, a REST call) restarting the kernel: the server tells no other client.
  const restartElsewhere = async (s: string) =>
    KernelAPI.restartKernel((await client.kernelIdOf(s))!, ServerConnection.makeSettings(jupyterConnection(loadConfig())));

  test('a kernel restarted by another Jupyter client is noticed at the next cell, every time, and start() reports it fresh', async () => {
    const s = await start();
    // Whether the new process's status messages reach this client is a race; each round draws it again.
    for (let round = 0; round < 12; round++) {
      await client.execute(s, `marker = ${round}`);
      await restartElsewhere(s);
      await expect(client.execute(s, 'marker')).rejects.toThrow(/namespace was reset/);
      expect(await client.start(s)).toMatchObject({ fresh: true });
      await client.markReady(s);
      expect((await client.execute(s, 'marker')).error?.ename).toBe('NameError');
    }
  });

  test('a cell running when another Jupyter client restarts the kernel is reported lost then, not at its timeout', async () => {
    const s = await start();
    const running = client.execute(s, 'import time\nprint("started", flush=True)\ntime.sleep(600)', { timeoutMs: 600_000 });
    await new Promise((r) => setTimeout(r, 500));
    await restartElsewhere(s);
    await expect(running).rejects.toThrow(/shut down or restarted/);
    expect(await client.start(s)).toMatchObject({ fresh: true });
  });

  test('shutdown removes the kernel from the server', async () => {
    const s = await start();
    expect(await client.isAlive(s)).toBe(true);
    await client.shutdown(s);
    expect(await client.isAlive(s)).toBe(false);
    expect(await client.kernelIdOf(s)).toBeUndefined();
  });
});
