import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { homedir, tmpdir } from 'node:os';
import type { SpanContext } from '@opentelemetry/api';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowFailedError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { ThrottledError, type ThrottleInfo } from '../../errors';
import { withRecurErrors } from '../../activities/activity-errors';
import { appendFirst } from '../../activities/append-first';
import { scanAfter } from '../../activities/scan-after';
import { appendedBatch, type AppendEventsInput } from '../../activities/event-log';
import { createForkActivities } from '../../activities/fork/fork-activities';
import type { CallModelInput, CallModelResult } from '../../activities/call-model';
import { checkReply } from '../../activities/model/reply-check';
import type { StopReason } from '../../activities/model/types';
import type { RunCellInput, RunCellResult } from '../../activities/session-activities';
import type { ScanWorkspaceInput, ScanWorkspaceResult, WorkspaceChangedFields } from '../../activities/workspace/scan-workspace';
import { createTreeActivities } from '../../activities/tree-sessions';
import { createStepLoop } from '../../activities/step-loop/run-steps';
import { LoopStops } from '../../activities/step-loop/loop-stops';
import { testLogKey } from './test-log-key';
import { createPlacementActivities } from '../../activities/place-session';
import { jobLauncher } from '../../activities/jobs/job-launch';
import { slurmJobName } from '../../activities/jobs/slurm-script';
import { createSlurmJobActivities } from '../../activities/jobs/slurm-executor';
import type { RunJobInput } from '../../activities/jobs/run-job';
import { jobReports } from '../../services/worker/job-executor';
import { jobsUpdate } from '../../workflows/jobs/job-messages';
import { FakeSlurm } from './fake-slurm';
import { DEFAULT_HOST_ID, hostTaskQueue } from '../../workflows/hosts/host-queue';
import { KERNEL_ACTIVITIES } from '../../workflows/proxies';
import { encodeEventBatch, type EncodedBatch, type StoredEvent } from '../../schemas';
import { stampEventTrace } from '../../observability/event-trace';
import type { RecurEvent, RecurEventInput } from '../../schemas/generated/events';
import { recordHarnessEditsUpdate } from '../../workflows/harness/harness-messages';
import { goalUpdate, scheduleUpdate } from '../../workflows/long-run-messages';
import { sendAgentMessageUpdate, setFinalUpdate, spawnChildUpdate, takeMessagesUpdate } from '../../workflows/messages';
import type { SessionInput, SessionLimits } from '../../workflows/session-types';
import type { Slice } from '../../workflows/tree-ledger';

/**
 * Session workflows on a real Temporal dev server (TestWorkflowEnvironment) with fake activities:
 * a scripted model, a "kernel" whose cells are lists of host calls made as the bridge makes them
 * (updates on the session's own workflow), and an in-memory log that encodes with the real codec.
 * Tests inject failures into the log: `failAppend` decides per event whether its append fails.
 */
export type Op =
  | { op: 'spawn'; task: string; name?: string; slice?: Slice }
  | { op: 'send'; to: string; text: string }
  | { op: 'take'; waitMs?: number }
  /** Takes messages until one with this text arrives, so a script holds its session until the test sends it (one take waits 20 s at most). */
  | { op: 'takeUntil'; text: string }
  | { op: 'final'; answer: string }
  | { op: 'goal'; objective: string }
  | { op: 'goalComplete' }
  | { op: 'schedule'; spec: string; instruction: string }
  | { op: 'harness' }
  /** Runs until the kernel is interrupted (interruptKernel), then ends as a KeyboardInterrupt would. */
  | { op: 'block' }
  /** jobs.submit, from a host whose executor is Slurm (this world's FakeSlurm). */
  | { op: 'job'; command: string };
/** `text`: a reply as a model wrote it, without code, checked as the model activity checks it (activities/model/reply-check.ts). */
export type Reply = { code: Op[] } | { answer: string } | { text: string; stopReason?: StopReason };

/** A span for an append activity, the same for each of its attempts, as the one that scheduled it is. */
const spanOf = (i: AppendEventsInput): SpanContext => ({
  traceId: createHash('sha256').update(i.rootId).digest('hex').slice(0, 32), spanId: (i.fromSeq + 1).toString(16).padStart(16, '0'), traceFlags: 1,
});

/** The batch a step loop's writer was given (non-empty), as the append input it was encoded from. */
function batchInput({ records }: EncodedBatch): AppendEventsInput {
  const [first] = records;
  return {
    sessionId: first.sessionId, rootId: first.rootId, parentId: first.parentId, fromSeq: first.seq, prevHash: first.prevHash,
    events: records.map((r) => ({ ts: r.ts, traceId: r.traceId, spanId: r.spanId, event: r.event })),
  };
}

export class FakeSessionWorld {
  /** Replies per agent name, in call order. */
  script: Record<string, Reply[]> = {};
  /** Decides whether an event's append fails (the whole batch fails, non-retryably). */
  failAppend: (e: RecurEventInput, sessionId: string) => boolean = () => false;
  /** An append to hold in flight: the first batch with an event `match` takes waits, before it writes, until `until` settles. */
  hold: { match: (e: RecurEventInput) => boolean; reached: () => void; until: Promise<void> } | null = null;
  /** Two different records written at one seq of a session (`<session> #<seq>: <kept type> / <other type>`): a forked chain. */
  readonly conflicts: string[] = [];
  /** The model's replies are replaced by this when set (a malformed activity result). */
  corruptModel = false;
  /** A model call this returns a throttle for fails as a provider's long throttle does (workflows/throttle-wait.ts). */
  throttle: (i: CallModelInput) => ThrottleInfo | null = () => null;
  /** Tokens in and out each model call reports. */
  tokensPerCall = { in: 1, out: 1 };
  /** Each append activity stamps the events it is given without trace ids with a span's, as a traced worker's does (observability/activity-tracing.ts). */
  traceAppends = false;
  readonly logs = new Map<string, StoredEvent[]>();
  readonly shutdowns: string[] = [];
  /** What each cell's host calls returned (or the error they raised), by session. */
  readonly cellResults = new Map<string, unknown[][]>();
  /** Every cell activity's input, in call order. */
  readonly cellInputs: RunCellInput[] = [];
  /** Every model call's input, in call order (the model spec, the prompt's extent, a manual compaction). */
  readonly modelCalls: CallModelInput[] = [];
  /** Every workspace scan, in call order, and whether a local activity of the workflow's ran it (else a cell's activity did). */
  readonly scans: Array<ScanWorkspaceInput & { local: boolean }> = [];
  /** A scan run by a cell's activity throws (activities/scan-after.ts). */
  failCellScans = false;
  /** What a scan after a cell finds; by default, as for every other scan, nothing: no WorkspaceChanged in these logs. */
  cellScanFinds: (i: ScanWorkspaceInput) => WorkspaceChangedFields | null = () => null;
  /** Sessions whose kernel was interrupted, in order. */
  readonly interrupts: string[] = [];
  private readonly blocked = new Map<string, () => void>();
  private readonly cellsByRequest = new Map<string, Promise<RunCellResult>>();
  /** The Slurm the world's host submits jobs to. */
  readonly slurm = new FakeSlurm();
  /** The first attempt of each job's runJob submits it and is then lost, as with a worker killed under it. */
  loseFirstJobAttempt = false;
  private constructor(readonly env: TestWorkflowEnvironment, readonly worker: Pick<Worker, 'shutdown'>, private readonly running: Promise<void>) {}

  /** `maxCachedWorkflows: 0`: every workflow task replays the history from the start, as a restarted worker does. */
  static async start(taskQueue = 'fake-world', opts: { maxCachedWorkflows?: number } = {}): Promise<FakeSessionWorld> {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    const env = await TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path: join(homedir(), '.recur', 'tools', 'venv', 'bin', 'temporal') } },
    });
    let world!: FakeSessionWorld;
    const logs = mkdtempSync(join(tmpdir(), 'fake-world-jobs-'));
    const launch = jobLauncher({ sandbox: 'off', python: 'unused', kernelDir: 'unused', sandboxRoot: 'unused', keyOf: (s) => s, workspaceOf: () => logs, judge: () => { throw new Error('no judge runs here'); } });
    const jobs = createSlurmJobActivities({
      slurm: { submit: (...a) => world.slurm.submit(...a), findByName: (n) => world.slurm.findByName(n), show: (id) => world.slurm.show(id), history: () => world.slurm.history(), cancel: (id) => world.slurm.cancel(id) },
      partition: null, pollMs: 50, logFile: (s, j) => join(logs, s, `${j}.log`), launch, env: {}, ...jobReports(env.client, DEFAULT_HOST_ID),
    });
    const tree = createTreeActivities({ client: env.client });
    // The real step loop (activities/step-loop), over this world's model, cells and log; its writer fences nothing here.
    const steps = createStepLoop({
      callModel: (i) => world.callModel(i),
      cell: (i, _resume, sending) => {
        sending(null);
        return world.runCell(i);
      },
      snapshotKernel: () => Promise.reject(new Error('this world takes no snapshots')),
      scanAfterCell: (i) => world.scanWorkspace(i),
      harnessSection: async () => '',
      openLog: async () => ({ append: (b) => world.append(batchInput(b)), close: async () => undefined }),
      readLog: async (id) => world.logs.get(id) ?? [],
      signer: testLogKey().signer,
      stops: new LoopStops(),
    });
    const activities = withRecurErrors({
      ...steps,
      runJob: async (i: RunJobInput) => {
        if (world.loseFirstJobAttempt && Context.current().info.attempt === 1) {
          await world.slurm.submit('', { name: slurmJobName(i.sessionId, i.jobId), cpus: i.cpus, minutes: null, output: '', cwd: logs, partition: null, env: {} });
          throw ApplicationFailure.retryable('its worker was lost');
        }
        return jobs.runJob(i);
      },
      cancelJob: jobs.cancelJob,
      appendEvents: async (i: AppendEventsInput) => world.append(world.traceAppends ? stampEventTrace(i, spanOf(i)) : i),
      // As the real worker's: a batch an input carries (SessionLog.ride) is written first.
      callModel: appendFirst((a) => world.append(a), async (i: CallModelInput) => world.callModel(i)),
      runCell: appendFirst((a) => world.append(a), scanAfter((i) => world.scanWorkspace(i), async (i: RunCellInput) => world.runCell(i))),
      shutdownKernel: async ({ sessionId }: { sessionId: string }) => void world.shutdowns.push(sessionId),
      interruptKernel: async ({ sessionId }: { sessionId: string }) => world.interrupt(sessionId),
      scanWorkspace: async (i: ScanWorkspaceInput) => world.scanWorkspace(i),
      ...tree,
      chargeTreeBudget: appendFirst((a) => world.append(a), tree.chargeTreeBudget),
      // The real registry (workflows/hosts), with this worker as its one host.
      ...createPlacementActivities({ client: env.client, hostId: DEFAULT_HOST_ID }),
      // The real copy, over this world's log.
      ...createForkActivities({ readLog: async (id) => world.logs.get(id) ?? [], appendEvents: (i) => world.append(i) }),
    });
    const worker = await Worker.create({
      connection: env.nativeConnection, taskQueue, workflowsPath: require.resolve('../../workflows'), activities, ...opts,
      // A shutdown that hangs fails the file's teardown with an error instead of keeping jest (and CI) alive to its limit.
      shutdownForceTime: '30s',
    });
    // The kernel-bound activities of sessions placed on that host come on its own queue.
    const host = await Worker.create({
      connection: env.nativeConnection, taskQueue: hostTaskQueue(taskQueue, DEFAULT_HOST_ID), shutdownForceTime: '30s',
      activities: Object.fromEntries([...KERNEL_ACTIVITIES, 'runJob', 'cancelJob'].filter((name) => name in activities).map((name) => [name, activities[name as keyof typeof activities]])),
    });
    const running = Promise.all([worker.run(), host.run()]).then(() => undefined);
    world = new FakeSessionWorld(env, { shutdown: () => [worker, host].forEach((w) => w.shutdown()) }, running);
    return world;
  }

  get client(): Client {
    return this.env.client;
  }

  async stop(): Promise<void> {
    this.worker.shutdown();
    try {
      await this.running;
    } finally {
      await this.env.teardown();
    }
  }

  reset(): void {
    this.script = {};
    this.failAppend = () => false;
    this.corruptModel = false;
    this.throttle = () => null;
    this.tokensPerCall = { in: 1, out: 1 };
    this.traceAppends = false;
    this.hold = null;
    this.conflicts.length = 0;
    this.slurm.reset();
    this.loseFirstJobAttempt = false;
    this.scans.length = 0;
    this.failCellScans = false;
    this.cellScanFinds = () => null;
  }

  input(task: string, limits: Partial<SessionLimits> = {}): SessionInput {
    const id = `w${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    return {
      sessionId: id, rootId: id, parentId: null, name: 'root', task, model: 'fake', depth: 0,
      limits: {
        maxTurns: 20, maxTokens: null, maxSeconds: null, cellTimeoutSeconds: 60, maxDepth: 3, turnsPerRun: 100,
        snapshotEveryCells: 1000, idleUnloadSeconds: 3600, maxChildren: 64, maxTreeSessions: 1000,
        messagesPerMinute: 60, messageBurst: 30, ...limits,
      },
    };
  }

  events(sessionId: string): RecurEvent[] {
    return (this.logs.get(sessionId) ?? []).map((r) => r.event);
  }

  types(sessionId: string): string[] {
    return this.events(sessionId).map((e) => e.type);
  }

  private async append(input: AppendEventsInput) {
    const failing = input.events.find((e) => this.failAppend(e.event, input.sessionId));
    if (failing) throw ApplicationFailure.nonRetryable(`injected: the log refused ${failing.event.type}`, 'EventLogError');
    const hold = this.hold;
    if (hold && input.events.some((e) => hold.match(e.event))) {
      this.hold = null;
      hold.reached();
      await hold.until;
    }
    const batch = encodeEventBatch(input);
    const log = this.logs.get(input.sessionId) ?? [];
    // A retried append repeats the same seqs: keep the first copy, as log readers do.
    for (const r of batch.records) {
      const kept = log.find((x) => x.seq === r.seq);
      if (!kept) log.push(r);
      else if (kept.hash !== r.hash) this.conflicts.push(`${input.sessionId} #${r.seq}: ${kept.type} / ${r.type}`);
    }
    this.logs.set(input.sessionId, log);
    return appendedBatch(batch);
  }

  private async callModel(i: CallModelInput): Promise<CallModelResult> {
    this.modelCalls.push(i);
    if (this.corruptModel) return { answer: null, code: null, toolCallId: null } as unknown as CallModelResult;
    const throttled = this.throttle(i);
    if (throttled) throw new ThrottledError(throttled);
    const reply = this.script[i.agent]?.[i.callIndex];
    if (!reply) throw ApplicationFailure.nonRetryable(`no scripted reply ${i.callIndex} for ${i.agent}`, 'ScriptExhaustedError');
    const code = 'code' in reply ? JSON.stringify(reply.code) : null;
    const text = 'text' in reply ? reply.text : 'answer' in reply ? reply.answer : null;
    const stopReason = 'text' in reply ? reply.stopReason ?? 'end' : 'end_turn';
    const rejected = 'text' in reply ? checkReply({ text: reply.text, code: null, stopReason: reply.stopReason ?? 'end' }) : null;
    const event = {
      model: 'fake', provider: 'scripted', tokensIn: this.tokensPerCall.in, tokensOut: this.tokensPerCall.out, costUsd: 0, latencyMs: 0, response: code ?? text ?? '',
      responseBlob: null, toolCalls: [], stopReason, requestBlob: null, contextFiles: [], usageSource: 'estimated' as const, cacheReadTokens: null, cacheWriteTokens: null,
    };
    // An operator's compaction, as the activity makes it: everything before this call summarised.
    const compacted = i.compactNow ? {
      fromSeq: 1, toSeq: i.throughSeq, droppedTurns: i.callIndex, droppedChars: 1, summary: 'summary', tokensBefore: 2, tokensAfter: 1,
      tokensIn: 1, tokensOut: 1, costUsd: 0, manual: true,
    } : null;
    return { answer: rejected ? null : text, answerBlob: null, code, codeBlob: null, toolCallId: null, rejected, event, compacted };
  }

  /** As a kernel does: an interrupt ends a running cell, and an idle kernel ignores it. */
  interrupt(sessionId: string): void {
    this.interrupts.push(sessionId);
    this.blocked.get(sessionId)?.();
  }

  /** Whether a cell of the session is running a `block` op, waiting to be interrupted. */
  isBlocked(sessionId: string): boolean {
    return this.blocked.has(sessionId);
  }

  private async block(sessionId: string): Promise<RunCellResult> {
    const beat = setInterval(() => Context.current().heartbeat(), 1_000);
    await new Promise<void>((resolve) => this.blocked.set(sessionId, resolve));
    clearInterval(beat);
    this.blocked.delete(sessionId);
    return { cell: { status: 'interrupted', outputs: 'KeyboardInterrupt', durationMs: 1, errorName: 'KeyboardInterrupt' }, restored: null };
  }

  private async scanWorkspace(i: ScanWorkspaceInput): Promise<ScanWorkspaceResult> {
    const local = Context.current().info.isLocal;
    this.scans.push({ ...i, local });
    if (!local && this.failCellScans) throw new Error('the scan after the cell failed');
    return { event: i.reason === 'cell' ? this.cellScanFinds(i) : null, manifest: { sha256: '0'.repeat(64), size: 0 } };
  }

  /** A cell the step loop left in flight is the one already running, as a kernel's record of it would be: never run again. */
  private runCell(i: RunCellInput): Promise<RunCellResult> {
    const running = this.cellsByRequest.get(i.cellId);
    if (running && i.leftByLoop) return running;
    const run = this.runCellOnce(i);
    this.cellsByRequest.set(i.cellId, run);
    return run;
  }

  private async runCellOnce(i: RunCellInput): Promise<RunCellResult> {
    this.cellInputs.push(i);
    const h = this.client.workflow.getHandle(i.sessionId);
    const results: unknown[] = [];
    const ops = JSON.parse(i.code) as Op[];
    if (ops.some((o) => o.op === 'block')) return this.block(i.sessionId);
    for (const op of ops) {
      try {
        const reply = await this.hostCall(h, op);
        // As the bridge does: a refusal is raised in the cell.
        const refused = typeof reply === 'object' && reply !== null && (reply as { ok?: boolean }).ok === false;
        results.push(refused ? { error: (reply as { reason: string }).reason } : reply);
      } catch (e) {
        results.push({ error: e instanceof WorkflowUpdateFailedError ? (e.cause?.message ?? e.message) : (e as Error).message });
      }
    }
    const all = this.cellResults.get(i.sessionId) ?? [];
    all.push(results);
    this.cellResults.set(i.sessionId, all);
    Context.current().heartbeat();
    return { cell: { status: 'ok', outputs: JSON.stringify(results).slice(0, 4000), durationMs: 1 }, restored: null };
  }

  private hostCall(h: ReturnType<Client['workflow']['getHandle']>, op: Op): Promise<unknown> {
    switch (op.op) {
      case 'spawn':
        return h.executeUpdate(spawnChildUpdate, { args: [{ task: op.task, name: op.name ?? null, model: null, spec: null, requestId: null, slice: op.slice ?? null }] });
      case 'send':
        return h.executeUpdate(sendAgentMessageUpdate, { args: [{ to: op.to, text: op.text }] });
      case 'take':
        return h.executeUpdate(takeMessagesUpdate, { args: [{ waitMs: op.waitMs ?? 0, max: null }] });
      case 'takeUntil':
        return (async () => {
          for (;;) {
            const taken = await h.executeUpdate(takeMessagesUpdate, { args: [{ waitMs: 20_000, max: null }] });
            if (taken.some((m) => m.text === op.text)) return taken;
          }
        })();
      case 'final':
        return h.executeUpdate(setFinalUpdate, { args: [{ answer: op.answer }] });
      case 'goal':
        return h.executeUpdate(goalUpdate, { args: [{ by: 'agent', action: 'create', spec: { objective: op.objective, openEnded: false, tokenBudget: null, secondsBudget: null, costBudgetUsd: null } }] });
      case 'goalComplete':
        return h.executeUpdate(goalUpdate, { args: [{ action: 'complete', by: 'agent', evidence: 'done' }] });
      case 'schedule':
        return h.executeUpdate(scheduleUpdate, { args: [{ action: 'add', spec: op.spec, instruction: op.instruction }] });
      case 'harness':
        return h.executeUpdate(recordHarnessEditsUpdate, { args: [{ op: 'edit', editIds: ['harness:x/0'] }] });
      case 'job':
        return h.executeUpdate(jobsUpdate, { args: [{ action: 'submit', command: op.command, cpus: 1, seeds: [], timeoutSeconds: null, executor: 'slurm' }] });
      case 'block':
        throw new Error('a block op runs alone in its cell');
    }
  }
}

/** Runs a session on the world's task queue to its end: 'completed', or the failure's message. */
export async function runToEnd(world: FakeSessionWorld, taskQueue: string, input: SessionInput): Promise<'completed' | string> {
  try {
    await world.client.workflow.execute('agentSessionWorkflow', { taskQueue, workflowId: input.sessionId, args: [input] });
    return 'completed';
  } catch (e) {
    if (!(e instanceof WorkflowFailedError)) throw e;
    return e.cause?.message ?? e.message;
  }
}
