import { setTimeout as sleep } from 'node:timers/promises';
import { status, up } from '../../services/devstack';
import { py, SessionHarness, type SessionRun } from '../helpers/session-harness';
import { runOnStackWorker } from '../helpers/stack-session';
import { PROCESS_ID_PY } from '../helpers/kernel-processes';

/**
 * The infrastructure under a running session dies (SIGKILL) and is brought back with `recur up`:
 * the session completes, and its log has every cell once, nothing lost or doubled.
 */
const counting = (cells: number) => [
  ...Array.from({ length: cells }, () => py('import time\ntime.sleep(1)\nn = globals().get("n", 0) + 1\nprint("cell", n)')),
  py('final(f"ran {n} cells")'),
];

describe('infrastructure restarts in the middle of a session', () => {
  const h = new SessionHarness();

  beforeAll(() => h.connect());
  afterAll(() => h.stop());

  async function pidOf(name: string): Promise<number> {
    const s = (await status(h.config)).find((x) => x.name === name);
    if (!s?.pid) throw new Error(`${name} is not running`);
    return s.pid;
  }

  /** Kills `service` after the tree's `at`-th event, waits `downMs`, then `recur up` brings it back. */
  async function runThroughRestart(service: string, at: number, downMs: number): Promise<SessionRun> {
    let restarted: Promise<unknown> | undefined;
    const run = await runOnStackWorker(h, { root: counting(5) }, {
      onEvent: async (n) => {
        if (n !== at) return false;
        process.kill(await pidOf(service), 'SIGKILL');
        restarted = sleep(downMs).then(() => up(h.config));
        return true; // the follower reads Kafka, which may be the thing that is down
      },
    });
    await restarted;
    return run;
  }

  function expectEveryCellOnce(run: SessionRun): void {
    expect(run.result).toEqual({ status: 'completed', answer: 'ran 5 cells' });
    const cells = run.of('CellExecuted');
    expect(cells.map((c) => [c.status, c.outputs])).toEqual([
      ...[1, 2, 3, 4, 5].map((i) => ['ok', `cell ${i}`]),
      ['ok', ''],
    ]);
    expect(new Set(cells.map((c) => c.requestId)).size).toBe(cells.length);
    expect(run.of('SessionStarted')).toHaveLength(1);
  }

  test('a Kafka broker restart: appends wait for the broker and the session completes', async () => {
    expectEveryCellOnce(await runThroughRestart('kafka', 6, 3_000));
  }, 300_000);

  test('a Temporal dev-server restart: the workflow carries on from its history', async () => {
    expectEveryCellOnce(await runThroughRestart('temporal', 6, 2_000));
  }, 300_000);

  test('losing the whole Jupyter server: the cell in flight is reported interrupted, the next restores the snapshot', async () => {
    let restarted: Promise<unknown> | undefined;
    const run = await runOnStackWorker(h, {
      root: [
        py(`kernel_process = ${PROCESS_ID_PY}\nx = 21`),
        py('y = x * 2'),
        py('z = y + 1'),
        py('import time\ntime.sleep(6)\nw = 1'),
        py(`print(x, y, z, "w" in globals(), ${PROCESS_ID_PY} != kernel_process)`),
        py('final("restored")'),
      ],
    }, {
      onEvent: async (_n, e) => {
        const ev = e.event as { type: string; outputs?: string; code?: string };
        if (ev.type !== 'CellRequested' || !ev.code?.includes('sleep(6)')) return false;
        await sleep(1_500);
        // The server's kernels go with it (each sandbox dies with its parent), as when their machine is lost.
        process.kill(await pidOf('jupyter'), 'SIGKILL');
        restarted = sleep(2_000).then(() => up(h.config));
        return true;
      },
    });
    await restarted;
    expect(run.result).toEqual({ status: 'completed', answer: 'restored' });
    const cells = run.of('CellExecuted');
    expect(cells[3]).toMatchObject({ status: 'interrupted' });
    expect(cells[4].status).toBe('ok');
    // x, y, z from the snapshot after cell 3; w was set by the lost cell only; a new kernel process.
    expect(cells[4].outputs).toMatch(/21 42 43 False True$/);
    const [restored] = run.of('KernelRestored');
    expect(restored.restored).toEqual(expect.arrayContaining(['x', 'y', 'z']));
    expect(restored.fromSnapshotSeq).toBe(run.of('KernelSnapshotted')[0].coversSeq);
  }, 300_000);
});
