import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { temporalConnection } from '../config/connections';
import { py, scriptedModel, sessionEvents, sessionInput } from './bench-worker';
import type { StoredEvent } from '../schemas';
import { size, type BenchContext, type Benchmark } from './benchmark';
import { compare } from './report';
import { completedAfter, until, type HistoryEvent } from './temporal-history';
import { spawnWorker } from './worker-process';
import { REPLACES_ENV, workerIdentity } from '../services/worker/lost-attempts';

/** Polls the session's log until `ready` holds. */
async function untilLogged(ctx: BenchContext, id: string, ready: (events: readonly StoredEvent[]) => boolean): Promise<void> {
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(100)) {
    if (ready(await sessionEvents(ctx.config, id))) return;
  }
  throw new Error(`session ${id} logged nothing new in 120 s`);
}

const firstAppendAfter = (events: HistoryEvent[], afterId: number) => completedAfter(events, 'appendEvents', afterId);

/** A fresh worker process started, to the first event of a new session appended: the floor of any recovery. */
async function coldStart(ctx: BenchContext, client: Client): Promise<number> {
  const queue = `bench-cold-${randomBytes(4).toString('hex')}`;
  const input = sessionInput(ctx.config, scriptedModel(ctx.config, ['done']));
  await client.workflow.start('agentSessionWorkflow', { taskQueue: queue, workflowId: input.sessionId, args: [input] });
  const t0 = Date.now();
  const worker = spawnWorker(ctx.config, queue);
  try {
    return (await until(client, input.sessionId, 120_000, (events) => firstAppendAfter(events, 0))) - t0;
  } finally {
    await client.workflow.getHandle(input.sessionId).result().catch(() => undefined);
    await worker.kill('SIGTERM');
  }
}

/** SIGKILL of the worker while a cell runs and a new worker started at once, to the session's next event appended. */
async function killed(ctx: BenchContext, client: Client): Promise<number> {
  const queue = `bench-kill-${randomBytes(4).toString('hex')}`;
  const input = sessionInput(ctx.config, scriptedModel(ctx.config, [py('x = 1'), py('import time\ntime.sleep(1.5)'), py('y = 2'), 'done']));
  const first = spawnWorker(ctx.config, queue);
  let second: ReturnType<typeof spawnWorker> | undefined;
  try {
    await client.workflow.start('agentSessionWorkflow', { taskQueue: queue, workflowId: input.sessionId, args: [input] });
    // The sleeping cell is sent once its request is logged (by the worker's steps or a cell activity).
    await untilLogged(ctx, input.sessionId, (events) => events.filter((e) => e.type === 'CellRequested').length >= 2);
    await sleep(1000); // the sleeping cell is running now, about 0.5 s of it left
    const mark = (await sessionEvents(ctx.config, input.sessionId)).length;
    const dead = workerIdentity(first.child.pid!);
    await first.kill('SIGKILL');
    const t0 = Date.now();
    // Started as the daemon starts a dead worker's successor: told whose attempts to end.
    second = spawnWorker(ctx.config, queue, { [REPLACES_ENV]: dead });
    await until(client, input.sessionId, 180_000, (events) => (events.some((e) => e.workflowExecutionCompletedEventAttributes) ? true : null));
    // The first event logged after the kill, stamped by the successor as it was made (the killed worker's last, unwritten, are lost).
    return (await sessionEvents(ctx.config, input.sessionId))[mark].ts - t0;
  } catch (e) {
    throw new Error(`${(e as Error).message}; worker stderr: ${first.stderr().slice(-800)} ${second?.stderr().slice(-800) ?? ''}`);
  } finally {
    await first.kill('SIGKILL');
    await second?.kill('SIGTERM');
  }
}

/**
 * Time from SIGKILL of the worker running a session to that session's next logged event, with a
 * replacement worker started at once. The cell keeps running in its kernel; the retried steps
 * (or cell activity) ask the kernel for it and log its real result. The baseline is a cold worker
 * start on a new session.
 */
export const workerKill: Benchmark = {
  name: 'worker-kill',
  async run(ctx) {
    const connection = await Connection.connect(temporalConnection(ctx.config));
    const client = new Client({ connection, namespace: ctx.config.temporal.namespace });
    try {
      const recover: number[] = [];
      const cold: number[] = [];
      for (let i = 0; i < size(ctx, 3, 1); i++) {
        ctx.log(`worker-kill: round ${i + 1}`);
        cold.push(await coldStart(ctx, client));
        recover.push(await killed(ctx, client));
      }
      return [compare({
        name: 'worker-kill/time-to-progress', title: 'Worker SIGKILL mid-cell to the session’s next event', unit: 'ms', better: 'lower',
        subject: { label: 'SIGKILL, new worker started at once', samples: recover },
        baseline: { label: 'cold worker start to first event of a new session', samples: cold },
        limits: 'the new worker’s start-up (it runs the prebuilt workflow bundle), which ends the dead worker’s attempts and clears its sticky queue, then the retried steps, which read the log back, take what was logged as theirs and ask the kernel for the cell; the cell itself ends about 0.5 s after the kill',
      })];
    } finally {
      await connection.close();
    }
  },
};
