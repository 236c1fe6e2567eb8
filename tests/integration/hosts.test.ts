import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../../config';
import { temporalConnection } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { liveProcess } from '../../services/home/process';
import { getHostsQuery } from '../../workflows/hosts/host-messages';
import { DEFAULT_HOST_ID, hostRegistryId } from '../../workflows/hosts/host-queue';
import { isLive } from '../../workflows/hosts/choose-host';
import { kernelProcesses } from '../helpers/kernel-processes';
import { ancestors } from '../helpers/process-tree';
import { recur } from '../helpers/run-cli';
import { py, scriptsDir } from '../helpers/session-harness';

interface StatusEntry { name: string; host: string; pid: number | null; healthy: boolean }

const config = loadConfig();
const jupyterPid = (host: string) => liveProcess(join(stackPaths({ ...config, hostId: host }).hostRun, 'jupyter.pid'))?.pid;

/**
 * Two more hosts beside the stack's own (`local`), each a real supervised worker and Jupyter
 * server under the test home, started and stopped by the CLI as a user would (docs/hosts.md).
 */
describe('hosts: recur host start/stop, status, and sessions placed across them', () => {
  let client: Client;
  let connection: Connection;

  beforeAll(async () => {
    connection = await Connection.connect(temporalConnection(config));
    client = new Client({ connection, namespace: config.temporal.namespace });
  });
  afterAll(async () => {
    await recur(['host', 'stop', '--id', 'h1']);
    await recur(['host', 'stop', '--id', 'h2']);
    await connection.close();
  });

  /** Starts the hosts and waits until the registry sees them and `local` live; ms taken. */
  async function startHosts(ids: string[]): Promise<{ startMs: number; liveMs: number }> {
    const t0 = Date.now();
    for (const id of ids) {
      const started = await recur(['host', 'start', '--id', id, '--json']);
      expect(started.stderr).toBe('');
      expect(started.code).toBe(0);
    }
    const startMs = Date.now() - t0;
    const registry = client.workflow.getHandle(hostRegistryId(config.temporal.taskQueue));
    for (let live: string[] = []; ![DEFAULT_HOST_ID, ...ids].every((h) => live.includes(h));) {
      await new Promise((r) => setTimeout(r, 250));
      const view = await registry.query(getHostsQuery).catch(() => ({ now: 0, hosts: [] }));
      live = view.hosts.filter((h) => isLive(h, view.now)).map((h) => h.hostId);
    }
    return { startMs, liveMs: Date.now() - t0 };
  }

  it('starts two hosts that status lists with their host, pid and health, places sessions on different hosts, and stops them', async () => {
    const { startMs, liveMs } = await startHosts(['h1', 'h2']);
    const status = await recur(['status', '--json']);
    expect(status.code).toBe(0);
    const services = (JSON.parse(status.lines[0]) as { services: StatusEntry[] }).services;
    for (const host of ['local', 'h1', 'h2']) {
      for (const name of ['jupyter', 'worker']) {
        expect(services.find((s) => s.host === host && s.name === name)).toMatchObject({ healthy: true, pid: expect.any(Number) });
      }
    }
    expect(new Set(services.map((s) => s.pid)).size).toBe(services.length);

    const file = join(scriptsDir(config), 'placed.json');
    writeFileSync(file, JSON.stringify({ agents: { root: [py('x = 6 * 7'), py('final(x)')] } }));
    const runs = await Promise.all([0, 1].map(() => recur(['run', 'compute', '--model', `scripted:${file}`, '--json'])));
    const placed: Array<{ id: string; host: string }> = [];
    for (const run of runs) {
      expect(run.code).toBe(0);
      const events = run.lines.map((l) => JSON.parse(l));
      const types = events.map((e) => e.type);
      // Placed before the first kernel-bound activity: between the cell's request and its result.
      expect(types).toEqual(['SessionStarted', 'ModelCalled', 'CellRequested', 'SessionPlaced', 'CellExecuted', 'ModelCalled', 'CellRequested', 'CellExecuted', 'SessionCompleted']);
      const at = events[3];
      expect(at.event).toMatchObject({ liveHosts: 3, loadedKernels: expect.any(Number) });
      expect(events[8].event.answer).toBe('42');
      placed.push({ id: at.sessionId, host: at.event.hostId });
    }
    // Two sessions at once go to two hosts: the second counts the first's placement.
    expect(new Set(placed.map((p) => p.host)).size).toBe(2);
    for (const { id, host } of placed) {
      // The kernel is a process of that host's own Jupyter server, and of no other.
      const kernels = kernelProcesses(config, id);
      expect(kernels.length).toBeGreaterThan(0);
      for (const pid of kernels) expect(ancestors(pid)).toContain(jupyterPid(host));
    }

    for (const { id } of placed) expect((await recur(['kill', id])).code).toBe(0);
    const stopT0 = Date.now();
    for (const id of ['h1', 'h2']) expect((await recur(['host', 'stop', '--id', id])).code).toBe(0);
    const stopMs = Date.now() - stopT0;
    const after = (JSON.parse((await recur(['status', '--json'])).lines[0]) as { services: StatusEntry[] }).services;
    expect(after.filter((s) => s.host !== 'local')).toEqual([]);
    expect(jupyterPid('h1')).toBeUndefined();
    // A host that stops leaves the registry at once, not after its beats stop.
    const view = await client.workflow.getHandle(hostRegistryId(config.temporal.taskQueue)).query(getHostsQuery);
    expect(view.hosts.map((h) => h.hostId)).not.toContain('h1');
    process.stderr.write(`hosts: two started in ${startMs} ms, all three live in the registry after ${liveMs} ms, two stopped in ${stopMs} ms\n`);
  });

  it('re-homes a session whose host is SIGKILLed mid-cell (worker, supervisor and Jupyter together): restored from its snapshot on a live host, the cell reported interrupted, the same answer', async () => {
    await startHosts(['h1', 'h2']);
    const file = join(scriptsDir(config), 'rehome.json');
    // Three cells, then the snapshot (every 3 cells), then a long cell the host dies in. An
    // undisturbed run's answer is the same: the last cell reads only what the snapshot holds.
    writeFileSync(file, JSON.stringify({ agents: { root: [
      py('a = 20'), py('b = 22'), py('c = a + b'), py('import time\ntime.sleep(40)\nc = -1'), py('final(a + b + c)'),
    ] } }));
    let killedAt = 0;
    let lostHost = '';
    const run = await recur(['run', 'survive a host', '--model', `scripted:${file}`, '--json'], {
      onLine: (line) => {
        const e = JSON.parse(line);
        if (e.type === 'SessionPlaced' && !lostHost) lostHost = e.event.hostId;
        if (e.type !== 'CellRequested' || !e.event.code.includes('sleep')) return;
        // Long enough for the cell to reach the kernel and its heartbeat to say so.
        setTimeout(() => {
          const dir = stackPaths({ ...config, hostId: lostHost }).hostRun;
          for (const name of ['host', 'worker', 'jupyter']) {
            const pid = liveProcess(join(dir, `${name}.pid`))?.pid;
            if (pid !== undefined) process.kill(pid, 'SIGKILL');
          }
          killedAt = Date.now();
        }, 3_000);
      },
    });
    expect(run.code).toBe(0);
    expect(['h1', 'h2']).toContain(lostHost);
    const events = run.lines.map((l) => JSON.parse(l));
    const sleep = events.findIndex((e) => e.type === 'CellRequested' && e.event.code.includes('sleep'));
    expect(events.slice(sleep).map((e) => e.type)).toEqual([
      'CellRequested', 'SessionPlaced', 'KernelRestored', 'CellExecuted', 'ModelCalled', 'CellRequested', 'CellExecuted', 'SessionCompleted',
    ]);
    const [, moved, restored, lostCell] = events.slice(sleep);
    expect(moved.event.hostId).not.toBe(lostHost);
    expect(restored.event.restored).toEqual(expect.arrayContaining(['a', 'b', 'c']));
    expect(lostCell.event).toMatchObject({ status: 'interrupted', errorValue: 'its host was lost' });
    expect(events[events.length - 1].event.answer).toBe('84');
    const movedMs = moved.ts - killedAt;
    const cellMs = lostCell.ts - killedAt;
    // HOST_LOST_AFTER (15 s) after the lost attempt's heartbeat timeout (10 s), plus Temporal's retry and sticky-queue delays.
    expect(movedMs).toBeLessThan(45_000);
    process.stderr.write(`hosts: a session re-placed ${movedMs} ms after its host was killed; its lost cell logged after ${cellMs} ms\n`);
    expect((await recur(['kill', events[0].sessionId])).code).toBe(0);
  });
});
