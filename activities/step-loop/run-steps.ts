import { ApplicationFailure, Context } from '@temporalio/activity';
import { RecurError, ThrottledError } from '../../errors';
import type { EncodedBatch, EventSigner, RecurEventInput, StoredEvent } from '../../schemas';
import type { CallModelInput, CallModelResult } from '../call-model';
import { encodeForLog } from '../event-log';
import type { FencedLog } from '../fenced-log';
import type { Restored } from '../cell-fields';
import type { RunCellInput, RunCellResult } from '../session-activities';
import { cellAsked, cellEndEvents, kernelSnapshotted, workspaceChanged, type CellEnd } from '../../workflows/step-events';
import type { CellLeft, LogHead, RunStepsInput, RunStepsResult } from './steps-types';
import type { SnapshotKernelInput, SnapshotKernelResult } from '../snapshot/snapshot-activities';
import type { ScanWorkspaceInput, ScanWorkspaceResult } from '../workspace/scan-workspace';
import type { LoopStop, LoopStops } from './loop-stops';
import { stepsDone, type SnapshotMark } from './steps-done';

/**
 * How long an allowance reuses a harness read. The session's own edits stop its steps (they reach
 * the workflow), so this bounds only how late it sees another session's or an operator's edit.
 */
export const HARNESS_REUSE_MS = 2_000;

export interface StepLoopDeps {
  callModel(input: CallModelInput, also: { staged: readonly StoredEvent[]; harness: string }): Promise<CallModelResult>;
  /** The session's harness as prompt text (services/worker/harness-reads.ts). */
  harnessSection(sessionId: string): Promise<string>;
  cell(input: RunCellInput, resume: { sentBefore: boolean; scheduledAtMs: number } | null, sending: (restored: Restored | null) => void): Promise<RunCellResult>;
  snapshotKernel(input: SnapshotKernelInput): Promise<SnapshotKernelResult>;
  scanAfterCell(input: ScanWorkspaceInput): Promise<ScanWorkspaceResult | null>;
  openLog(sessionId: string): Promise<FencedLog>;
  /** The session's committed events, all of them (a later attempt adopts what an earlier one logged). */
  readLog(sessionId: string): Promise<readonly StoredEvent[]>;
  signer: EventSigner;
  stops: LoopStops;
}

/**
 * Runs a session's plain steps in the worker: the model call, one append (the last cell's end,
 * the reply, the cell it asks for), the cell, the scan, and the cadence's snapshot beside the
 * model call, with no round trip to Temporal between them (docs/performance.md, "Steps the
 * worker runs"). Its appends go through the session's fenced writer, so a later attempt, which
 * adopts whatever an earlier one logged, can never log a second version of a seq. It returns at
 * the allowance's end, when told to stop (loop-stops.ts), or at anything the workflow decides.
 */
export function createStepLoop(deps: StepLoopDeps) {
  return {
    async runSteps(input: RunStepsInput): Promise<RunStepsResult> {
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), 3_000);
      const stop = deps.stops.register(input.loopId);
      const log = await deps.openLog(input.sessionId);
      try {
        return await new Steps(input, deps, log, stop).run(ctx.info.attempt > 1, ctx.info.scheduledTimestampMs);
      } finally {
        clearInterval(beat);
        deps.stops.release(input.loopId);
        await log.close().catch(() => undefined);
      }
    },
    /** Tells the allowance `loopId` to return at its next chance; it may not have started yet. */
    async stopSteps({ loopId }: { loopId: string }): Promise<void> {
      deps.stops.stop(loopId);
    },
  };
}

/** A result that hands the workflow no reply, cell or failure to carry on with. */
const NOTHING_BACK = { reply: null, cellLeft: null, cellEnded: null, modelFailed: null } as const;

class Steps {
  private head: LogHead;
  /** Encoded, not yet written: they go with the next append. */
  private staged: EncodedBatch | null = null;
  private readonly logged: RecurEventInput[] = [];
  /** What the model calls in `logged` spent. */
  private readonly spent = { tokens: 0, costUsd: 0 };
  /** The head the workflow gave. */
  private readonly fromSeq: number;
  private turn: number;
  private cellsRun: number;
  private cellsSinceSnapshot: number;
  private lastSnapshot: SnapshotMark | null;
  private harnessRead: { text: string; at: number } | null = null;

  constructor(
    private readonly input: RunStepsInput,
    private readonly deps: StepLoopDeps,
    private readonly log: FencedLog,
    private readonly stop: LoopStop,
  ) {
    this.head = input.head;
    this.fromSeq = input.head.nextSeq;
    this.turn = input.turn;
    this.cellsRun = input.cellsRun;
    this.cellsSinceSnapshot = input.cellsSinceSnapshot;
    this.lastSnapshot = input.lastSnapshot;
  }

  /** `retry`: a later attempt, which takes what an earlier one logged (its writer is fenced now) as its own. */
  async run(retry: boolean, scheduledAtMs: number): Promise<RunStepsResult> {
    const ride = this.input.append?.events.length ?? 0;
    if (retry || this.input.adopt) await this.adopt();
    // Taking the log back writes nothing: a batch of the workflow's not found logged stays the workflow's to write.
    if (this.input.append && this.logged.length < ride) {
      if (this.input.adopt) return { ...NOTHING_BACK, why: 'allowance', head: this.head, done: stepsDone([], this.fromSeq, this.input.cellsSinceSnapshot) };
      await this.write(encodeForLog(this.input.append, this.deps.signer));
    }
    const fromSeq = this.fromSeq + ride;
    const adopted = stepsDone(this.logged.slice(ride), fromSeq, this.cellsSinceSnapshot);
    this.turn += adopted.calls.length;
    this.cellsRun += adopted.cellsEnded;
    this.cellsSinceSnapshot = adopted.cellsSinceSnapshot;
    this.lastSnapshot = adopted.lastSnapshot ?? this.lastSnapshot;
    // Whether an earlier attempt got as far as sending it is not known: taken as sent, so a kernel
    // lost meanwhile has it reported as lost, never run a second time (a live kernel's record says which).
    const open = adopted.openCell && { ...adopted.openCell, sent: true };
    // Steps an earlier attempt took count against the allowance: a retry never runs past its end.
    const result = await this.steps(open, scheduledAtMs, adopted.calls.length);
    return { ...result, head: this.head, done: stepsDone(this.logged.slice(ride), fromSeq, this.input.cellsSinceSnapshot) };
  }

  /** The session's events logged past the head the workflow gave, by an earlier attempt. */
  private async adopt(): Promise<void> {
    const tail = (await this.deps.readLog(this.input.sessionId)).filter((e) => e.seq >= this.fromSeq);
    const last = tail.at(-1);
    if (last) this.head = { ...this.head, nextSeq: last.seq + 1, headHash: last.hash };
    this.took(tail.map((e) => e.event));
  }

  private async steps(open: CellLeft | null, scheduledAtMs: number, adopted: number): Promise<Omit<RunStepsResult, 'head' | 'done'>> {
    // Taking the log back, a cell left open is the workflow's: it may have to re-home the session first.
    if (open && this.input.adopt) return { ...NOTHING_BACK, cellLeft: open, why: 'stopped' };
    if (open) {
      const ended = await this.cell(open, { sentBefore: open.sent, scheduledAtMs });
      if (ended !== 'ended') return { ...NOTHING_BACK, ...ended };
    }
    for (let taken = adopted; ; taken++) {
      if (this.stop.stopped) return this.end('stopped');
      if (taken >= this.input.steps) return this.end('allowance');
      if (this.input.until !== null && Date.now() >= this.input.until) return this.end('until');
      if (this.spentAll()) return this.end('allowance');
      const snapshot = this.cellsSinceSnapshot >= this.input.snapshotEvery ? this.snapshot() : null;
      const call = this.deps.callModel({
        sessionId: this.input.sessionId, agent: this.input.agent, model: this.input.model, callIndex: this.turn,
        throughSeq: this.head.nextSeq - 1, compactAtTokens: this.input.compactAtTokens, compactions: this.input.compactions,
      }, { staged: this.staged?.records ?? [], harness: await this.harness() });
      // Settled before anything else: the next cell must find the kernel as the snapshot left it.
      const [called, snap] = await Promise.all([call.then((reply) => ({ reply }), (error: unknown) => ({ error })), snapshot]);
      if (snap) {
        this.stage([kernelSnapshotted(snap, snap.coversSeq)]);
        this.cellsSinceSnapshot = 0;
      }
      if ('error' in called) {
        if (called.error instanceof ThrottledError) {
          await this.flush();
          return { ...NOTHING_BACK, throttled: called.error.info, why: 'model' };
        }
        const failed = finalFailure(called.error);
        if (!failed) throw called.error;
        await this.flush();
        return { ...NOTHING_BACK, modelFailed: failed, why: 'model' };
      }
      const { reply } = called;
      if (reply.code === null || reply.rejected || reply.compacted || this.stop.stopped) {
        await this.flush();
        return { ...NOTHING_BACK, reply, why: this.stop.stopped ? 'stopped' : 'reply' };
      }
      const reqSeq = this.nextSeq() + 1;
      const requestId = `${this.input.sessionId}/${reqSeq}`;
      this.stage(cellAsked(this.turn, reply, reply.code, requestId));
      await this.flush();
      this.turn++;
      const ended = await this.cell({ requestId, reqSeq, code: reply.code, codeBlob: reply.codeBlob, sent: false }, null);
      if (ended !== 'ended') return { ...NOTHING_BACK, ...ended };
    }
  }

  /** Runs (or resumes) a logged cell and stages its end; what to return instead when it could not. */
  private async cell(c: CellLeft, resume: { sentBefore: boolean; scheduledAtMs: number } | null): Promise<'ended' | { cellLeft: CellLeft; why: 'stopped' } | { cellEnded: CellEnd; why: 'scan' }> {
    // What the workflow resumes if the loop leaves the cell running: sent, with the restore made for it.
    let left: CellLeft = { ...c, sent: true };
    let markSent: (restored: Restored | null) => void = () => undefined;
    const sentNow = new Promise<'left'>((resolve) => (markSent = (restored) => {
      left = { ...c, sent: true, restored };
      resolve('left');
    }));
    if (c.sent) markSent(c.restored ?? null);
    const input: RunCellInput = {
      sessionId: this.input.sessionId, rootId: this.input.rootId, cellId: c.requestId, code: c.code, codeBlob: c.codeBlob,
      timeoutSeconds: this.input.cellTimeoutSeconds, firstCell: this.cellsRun === 0, restoreFrom: this.lastSnapshot, throughSeq: c.reqSeq,
    };
    const run = this.deps.cell(input, resume, markSent);
    // Told to stop mid-cell (the kernel called the host, or something reached the workflow), the
    // cell goes on and the workflow resumes it, asking the kernel client: only once the cell is
    // queued to the kernel there, so that ask comes after it and never finds it missing.
    const outcome = await Promise.race([run, this.stop.told.then(() => Promise.race([sentNow, run]))]);
    if (outcome === 'left') {
      run.catch(() => undefined);
      return { cellLeft: left, why: 'stopped' };
    }
    this.cellsRun++;
    const end: CellEnd = { requestId: c.requestId, code: c.code, cell: outcome.cell, restored: outcome.restored };
    const scan = await this.deps.scanAfterCell({
      sessionId: this.input.sessionId, reason: 'cell', requestId: c.requestId, key: `${c.requestId}/scan`, startManifest: this.input.workspaceStart,
    }).catch(() => null);
    if (scan === null) return { cellEnded: end, why: 'scan' };
    this.stage(cellEndEvents(end, workspaceChanged(scan)));
    this.cellsSinceSnapshot++;
    return 'ended';
  }

  /** The harness section for the next call: read again once the last read is HARNESS_REUSE_MS old. */
  private async harness(): Promise<string> {
    const now = Date.now();
    if (!this.harnessRead || now - this.harnessRead.at >= HARNESS_REUSE_MS) {
      this.harnessRead = { text: await this.deps.harnessSection(this.input.sessionId), at: now };
    }
    return this.harnessRead.text;
  }

  /** Whether the calls logged so far have spent what the gate allows before it asks. */
  private spentAll(): boolean {
    const { tokens, costUsd } = this.input.spendLeft;
    return (tokens !== null && this.spent.tokens >= tokens) || (costUsd !== null && this.spent.costUsd >= costUsd);
  }

  /** Events now in the log, and what their model calls spent. */
  private took(events: readonly RecurEventInput[]): void {
    this.logged.push(...events);
    for (const e of events) {
      if (e.type !== 'ModelCalled') continue;
      this.spent.tokens += e.tokensIn + e.tokensOut;
      this.spent.costUsd += e.costUsd;
    }
  }

  /** The cadence's snapshot, beside the model call; it covers every cell staged so far. */
  private snapshot(): Promise<SnapshotKernelResult | null> {
    const coversSeq = this.nextSeq() - 1;
    return this.deps.snapshotKernel({ sessionId: this.input.sessionId, coversSeq }).catch(() => null);
  }

  private async end(why: 'stopped' | 'allowance' | 'until'): Promise<Omit<RunStepsResult, 'head' | 'done'>> {
    await this.flush();
    return { ...NOTHING_BACK, why };
  }

  /** The seq the next event staged gets. */
  private nextSeq(): number {
    return this.staged?.nextSeq ?? this.head.nextSeq;
  }

  /** Encodes `events` after those staged: each is encoded and sealed once, whatever joins the batch after it. */
  private stage(events: RecurEventInput[]): void {
    const ts = Date.now();
    const s = this.staged;
    const added = encodeForLog({
      sessionId: this.input.sessionId, rootId: this.input.rootId, parentId: this.input.parentId,
      fromSeq: this.nextSeq(), prevHash: s?.headHash ?? this.head.headHash, events: events.map((event) => ({ ts, ...this.input.head.trace, event })),
    }, this.deps.signer);
    this.staged = s ? { records: [...s.records, ...added.records], values: [...s.values, ...added.values], nextSeq: added.nextSeq, headHash: added.headHash } : added;
  }

  private async flush(): Promise<void> {
    const batch = this.staged;
    if (!batch) return;
    await this.write(batch);
    this.staged = null;
  }

  private async write(batch: EncodedBatch): Promise<void> {
    const r = await this.log.append(batch);
    this.took(batch.records.map((e) => e.event));
    this.head = { nextSeq: r.nextSeq, headHash: r.headHash, trace: r.trace ?? this.head.trace };
    // A snapshot becomes the base of a restore once its event is in the log.
    for (const { event: e } of batch.records) if (e.type === 'KernelSnapshotted') this.lastSnapshot = { manifest: e.manifest, coversSeq: e.coversSeq };
  }
}

/** An error no retry of the call can help with (activities/activity-errors.ts makes the same call for an activity); null for any other. */
function finalFailure(e: unknown): { type: string; message: string } | null {
  if (e instanceof RecurError && !e.retryable) return { type: e.name, message: e.message };
  if (e instanceof ApplicationFailure && e.nonRetryable) return { type: e.type ?? 'Error', message: e.message };
  return null;
}
