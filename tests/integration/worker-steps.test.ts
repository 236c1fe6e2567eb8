import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { CallModelInput, CallModelResult } from '../../activities/call-model';
import { createEventLogActivities, createEventLogProducer } from '../../activities/event-log';
import { openFencedLog } from '../../activities/fenced-log';
import { createKernelClient } from '../../activities/kernel';
import { createKernelActivities } from '../../activities/run-cell';
import { LoopStops } from '../../activities/step-loop/loop-stops';
import { createStepLoop } from '../../activities/step-loop/run-steps';
import type { RunStepsInput, RunStepsResult } from '../../activities/step-loop/steps-types';
import { loadConfig } from '../../config';
import { kafkaClient } from '../../config/connections';
import { jupyterConnection, stackPaths } from '../../config/home-paths';
import { verifyChain, ZERO_HASH } from '../../schemas';
import { homeSigner } from '../../services/home/log-keys';
import { repoRoot } from '../../services/home/repo-root';
import { readSessionLog } from '../../services/projector';
import { createKernelHost } from '../../services/sandbox';
import { py, SessionHarness } from '../helpers/session-harness';

const config = loadConfig();

describe('plain steps the worker runs (real Temporal, Kafka, Jupyter; scripted model)', () => {
  const h = new SessionHarness();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  test('a session\'s plain steps run in one activity, and its log is the one the workflow\'s own steps write', async () => {
    const cells = Array.from({ length: 6 }, (_, i) => py(`runs = globals().get("runs", 0) + 1\nprint(${i}, runs)`));
    const run = await h.run({ root: [...cells, py('final(str(runs))')] }, 'count the cells', { snapshotEveryCells: 2 });
    expect(run.result).toEqual({ status: 'completed', answer: '6' });
    // Every cell ran once, in order; the cadence's snapshots are in the log as the workflow's own steps log them.
    expect(run.of('CellExecuted').map((c) => [c.status, c.executionCount])).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => ['ok', n]));
    expect(run.of('ModelCalled').map((m) => m.turn)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const steps = run.types().filter((t) => t !== 'KernelSnapshotted' && t !== 'WorkspaceChanged');
    expect(steps).toEqual(['SessionStarted', ...Array.from({ length: 7 }, () => ['ModelCalled', 'CellRequested', 'CellExecuted']).flat(), 'SessionCompleted']);
    expect(run.of('KernelSnapshotted').length).toBeGreaterThanOrEqual(2);
    for (const snap of run.of('KernelSnapshotted')) expect(run.sessions.get(run.id)![snap.coversSeq].type).toMatch(/CellExecuted|WorkspaceChanged/);
    const { events } = await h.client.workflow.getHandle(run.id).fetchHistory();
    const activities = (events ?? []).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
    // The first cell places the session on the workflow's own path; the worker runs the rest, the final cell's `final()` included.
    expect(activities.filter((a) => a === 'runCell')).toHaveLength(2);
    expect(activities.filter((a) => a === 'callModel')).toHaveLength(1);
    expect(activities.filter((a) => a === 'runSteps').length).toBeGreaterThanOrEqual(1);
  }, 180_000);

  test('a message that reaches a session while the worker runs its steps stops them, and the next prompt delivers it', async () => {
    const input = h.input({ root: [
      py('import time\nstarted = time.time()'),
      ...Array.from({ length: 40 }, () => py('time.sleep(0.05)')),
      'done',
    ] }, 'sleep a little, many times');
    await h.client.workflow.start('agentSessionWorkflow', { taskQueue: h.taskQueue, workflowId: input.sessionId, args: [input] });
    const handle = h.client.workflow.getHandle(input.sessionId);
    for (;;) {
      const { raw } = await handle.describe();
      if (raw.pendingActivities?.some((a) => a.activityType?.name === 'runSteps')) break;
      await sleep(50);
    }
    await handle.signal('deliverMessage', { messageId: 'outside#1', from: 'operator', text: 'hello from outside' });
    const run = await h.read(input.sessionId, await h.result(input.sessionId));
    expect(run.result).toMatchObject({ status: 'completed' });
    const types = run.types();
    const delivered = types.indexOf('MessageDelivered');
    expect(delivered).toBeGreaterThan(0);
    // Delivered at a prompt: right after a cell's end, before the next model call.
    expect(types[delivered + 1]).toBe('ModelCalled');
    expect(run.of('CellExecuted')).toHaveLength(41);
  }, 180_000);
});

describe('an allowance whose first attempt was given up on (real Kafka and Jupyter)', () => {
  const kafka = kafkaClient(config, 'writer', 'worker-steps-test');
  const signer = homeSigner(stackPaths(config).keys);
  const kernels = createKernelClient({ ...jupyterConnection(config), host: createKernelHost(config), pythonPath: `${repoRoot()}/kernel` });
  const producer = createEventLogProducer(kafka);
  const sessions: string[] = [];
  afterAll(async () => {
    await Promise.all(sessions.map((s) => kernels.shutdown(s).catch(() => undefined)));
    kernels.dispose();
    await producer.disconnect();
  });

  /** A model that asks for one counting cell a turn; `hold` keeps one call of one attempt until released. */
  function model(hold?: { turn: number; reached: () => void; until: Promise<void> }) {
    return async (i: CallModelInput): Promise<CallModelResult> => {
      if (hold && i.callIndex === hold.turn) {
        hold.reached();
        await hold.until;
      }
      const code = `runs = globals().get("runs", 0) + 1\nprint("turn ${i.callIndex}", runs)`;
      return {
        answer: null, answerBlob: null, code, codeBlob: null, toolCallId: null, rejected: null, compacted: null,
        event: {
          model: 'test', provider: 'scripted', tokensIn: 1, tokensOut: 1, costUsd: 0, latencyMs: 0, response: code, responseBlob: null, toolCalls: [],
          stopReason: 'tool_use', requestBlob: null, contextFiles: [], usageSource: 'estimated', cacheReadTokens: null, cacheWriteTokens: null,
        },
      };
    };
  }

  function loop(callModel: ReturnType<typeof model>) {
    const { cell } = createKernelActivities({ kernels, blobs: {} as never, transcripts: {} as never, snapshots: {} as never });
    return createStepLoop({
      callModel, cell, signer, stops: new LoopStops(), harnessSection: async () => '',
      snapshotKernel: () => Promise.reject(new Error('no snapshots in this test')),
      scanAfterCell: async () => ({ event: null, manifest: { sha256: '0'.repeat(64), size: 0 } }),
      openLog: (sessionId) => openFencedLog({ kafka, topic: config.kafka.topic }, sessionId),
      readLog: async (sessionId) => (await readSessionLog({ kafka, topic: config.kafka.topic, sessionId, descendants: false })).events,
    });
  }

  test('a second attempt fences the first, takes what it logged as its own and resumes its cell; the first can log nothing more', async () => {
    const sessionId = `steps-${randomUUID()}`;
    sessions.push(sessionId);
    await kernels.start(sessionId);
    await kernels.markReady(sessionId);
    const { appendEvents } = createEventLogActivities({ kafka, topic: config.kafka.topic, signer, producer });
    const started = await appendEvents({
      sessionId, rootId: sessionId, parentId: null, fromSeq: 0, prevHash: ZERO_HASH, events: [{ ts: Date.now(), event: {
        type: 'SessionStarted', task: 't', taskBlob: null, name: 'root', model: 'test', parentId: null, depth: 0, maxDepth: 1, maxTurns: 10,
        cellTimeoutSeconds: 60, budgetUsd: null, systemPromptBlob: null, sandbox: null, research: null,
      } }],
    });
    const input: RunStepsInput = {
      loopId: `${sessionId}/0`, sessionId, rootId: sessionId, parentId: null, agent: 'root', model: 'test',
      head: { nextSeq: started.nextSeq, headHash: started.headHash, trace: { traceId: null, spanId: null } }, append: null,
      turn: 0, steps: 4, until: null, spendLeft: { tokens: null, costUsd: null }, compactAtTokens: null, compactions: 0,
      cellTimeoutSeconds: 60, cellsRun: 1, lastSnapshot: null, snapshotEvery: 1000, cellsSinceSnapshot: 0, workspaceStart: null,
    };
    let reached: () => void = () => undefined;
    const atTurn2 = new Promise<void>((resolve) => (reached = resolve));
    let release: () => void = () => undefined;
    const first = new MockActivityEnvironment({ attempt: 1 }).run(loop(model({ turn: 2, reached, until: new Promise((r) => (release = r)) })).runSteps, input);
    first.catch(() => undefined);
    // The first attempt has logged two steps, ended the second's cell, and hangs in its third model call: given up on.
    await atTurn2;
    const second: RunStepsResult = await new MockActivityEnvironment({ attempt: 2 }).run(loop(model()).runSteps, input);
    release();
    await expect(first).rejects.toThrow(/was fenced: a newer writer of the session has started/);

    expect(second.done.calls).toHaveLength(4);
    expect(second.head.nextSeq).toBe(1 + 4 * 3);
    const { events } = await readSessionLog({ kafka, topic: config.kafka.topic, sessionId, descendants: false });
    expect(verifyChain(events).ok).toBe(true);
    expect(events.map((e) => e.type)).toEqual(['SessionStarted', ...Array.from({ length: 4 }, () => ['ModelCalled', 'CellRequested', 'CellExecuted']).flat()]);
    expect(events.filter((e) => e.event.type === 'ModelCalled').map((e) => (e.event as { turn: number }).turn)).toEqual([0, 1, 2, 3]);
    // The second step's cell ran once, in the first attempt; the second found it done in the kernel.
    expect(events.filter((e) => e.event.type === 'CellExecuted').map((e) => (e.event as { outputs: string }).outputs)).toEqual(['turn 0 1', 'turn 1 2', 'turn 2 3', 'turn 3 4']);
    expect(second.cellLeft).toBeNull();
    expect((await kernels.execute(sessionId, 'print(runs)')).stdout).toBe('4\n');
  }, 120_000);
});
