import { Context } from '@temporalio/activity';
import { KernelLostError, LimitError } from '../errors';
import { FIELD_LIMITS, INLINE, clipText, previewNamingBlob } from '../schemas/field-limits';
import { inlineOrBlob, type BlobStore } from './blob-store';
import type { ExecuteResult, KernelClient } from './kernel/index';
import { planKernelRestore } from './plan-kernel-restore';
import type { CellFields, KernelRestoredFields, Restored } from './cell-fields';
import type { RunCellInput, RunCellResult } from './session-activities';
import type { createSnapshotActivities } from './snapshot/index';
import type { TranscriptCache } from './transcript-cache';
import { byWorkerShutdown } from './worker-shutdown';

/** Output kept inline in CellExecuted and shown to the model; the whole output goes to the blob store beyond it. */
export const INLINE_OUTPUT_CHARS = 8 * 1024;

/** A cell's output as the model reads it: streams, the last expression's value, displays' text, in that order. */
export function renderOutputs(r: ExecuteResult): string {
  const parts = [r.stdout, r.stderr];
  for (const d of r.displays) if (typeof d['text/plain'] === 'string') parts.push(`${d['text/plain']}\n`);
  if (r.result !== null) parts.push(r.result);
  return parts.join('').replace(/\n$/, '');
}

/** Why a fresh kernel is caught up with the log: it died, it was unloaded while idle, or the session is a fork. */
type RestoreCause = 'lost' | 'unloaded' | 'forked';
const RESTORE_WHAT: Record<RestoreCause, string> = {
  lost: 'was lost and has been restored',
  unloaded: 'was unloaded while you were idle and has been reloaded',
  forked: 'has been restored to its state at the fork point',
};

/** The one line the model reads about a restore. */
export function restoreNote(r: KernelRestoredFields, skipped: Array<{ requestId: string; reason: string }>, why: RestoreCause = 'lost'): string {
  const from = r.fromSnapshotSeq === null ? 'no snapshot yet' : `the snapshot at #${r.fromSnapshotSeq}`;
  const what = RESTORE_WHAT[why];
  const parts = [`[your kernel ${what}: ${r.restored.length} variable(s) from ${from}, ${r.replayedCells.length} later cell(s) re-run`];
  if (r.failed.length) parts.push(`; could not restore: ${r.failed.map((f) => `${f.name} (${f.reason})`).join(', ')}`);
  if (skipped.length) parts.push(`; not re-run: ${skipped.map((s) => `${s.requestId} (${s.reason})`).join(', ')}`);
  return `${parts.join('')}]\n`;
}

/** What runCell heartbeats; a re-homing workflow reads it from the lost attempt's timeout (workflows/placement.ts). */
export interface CellProgress {
  sentCellId: string | null;
}

function lostCell(outputs: string, why: string): CellFields {
  return { status: 'interrupted', outputs, durationMs: 0, errorName: 'KernelLostError', errorValue: why };
}

/**
 * A cell the host had no kernel for: it never ran, so it is logged as interrupted (a restore or
 * replay does not run it) and the model reads why, and what setting raises the limit.
 */
export function refusedCell(e: LimitError): CellFields {
  return { status: 'interrupted', outputs: `LimitError: ${e.message}; the cell did not run`, durationMs: 0, errorName: 'LimitError', errorValue: e.message };
}

interface KernelDeps {
  kernels: KernelClient;
  blobs: BlobStore;
  transcripts: TranscriptCache;
  snapshots: ReturnType<typeof createSnapshotActivities>;
}

export function createKernelActivities(deps: KernelDeps) {
  const { kernels, blobs } = deps;

  /** Brings a lost kernel back: the latest snapshot, then the logged cells after it that are safe to re-run. */
  async function restore(input: RunCellInput): Promise<Restored> {
    const t0 = Date.now();
    const events = await deps.transcripts.load(input.sessionId, input.throughSeq - 1);
    const plan = planKernelRestore(events, input.restoreFrom?.coversSeq ?? -1);
    const loaded = input.restoreFrom
      ? await deps.snapshots.restoreKernel({ sessionId: input.sessionId, manifest: input.restoreFrom.manifest })
      : { restored: [], failed: [] };
    for (const cell of plan.replay) {
      const code = cell.codeBlob ? (await blobs.get(cell.codeBlob.sha256)).toString('utf8') : cell.code;
      await kernels.execute(input.sessionId, code, { timeoutMs: cell.timeoutSeconds * 1000 });
    }
    const fields: KernelRestoredFields = {
      manifest: input.restoreFrom?.manifest ?? null,
      fromSnapshotSeq: input.restoreFrom?.coversSeq ?? null,
      restored: loaded.restored,
      failed: loaded.failed,
      replayedCells: plan.replay.map((c) => c.requestId),
      interruptedCell: plan.interruptedCell,
      durationMs: Date.now() - t0,
    };
    // Unloaded on purpose (idle) or forked rather than lost: what last happened to the kernel says which.
    const last = events.filter((e) => e.type === 'SessionUnloaded' || e.type === 'KernelRestored' || e.type === 'ForkedFrom').at(-1);
    return { fields, note: restoreNote(fields, plan.skipped, last?.type === 'SessionUnloaded' ? 'unloaded' : last?.type === 'ForkedFrom' ? 'forked' : 'lost') };
  }

  async function execute(input: RunCellInput, prefix: string, sending: () => void): Promise<CellFields> {
    const code = input.codeBlob ? (await blobs.get(input.codeBlob.sha256)).toString('utf8') : input.code;
    sending();
    const r = await kernels.execute(input.sessionId, code, { timeoutMs: input.timeoutSeconds * 1000, cellId: input.cellId });
    return fieldsOf(r, prefix);
  }

  async function fieldsOf(r: ExecuteResult, prefix: string): Promise<CellFields> {
    const text = prefix + renderOutputs(r);
    const { preview, blob } = await inlineOrBlob(blobs, text, INLINE_OUTPUT_CHARS);
    const note = blob ? `\n[output truncated: ${text.length} characters in all, ${INLINE_OUTPUT_CHARS} shown; full output is blob ${blob.sha256}]` : '';
    return {
      status: r.status,
      outputs: preview + note,
      outputsBlob: blob,
      durationMs: Math.round(r.durationMs),
      executionCount: r.executionCount,
      errorName: r.error ? clipText(r.error.ename, FIELD_LIMITS.CellExecuted.errorName) : null,
      errorValue: r.error ? await errorValue(r.error.evalue) : null,
      // The end of a traceback says what failed; keep that part when it is long.
      traceback: r.error ? r.error.traceback.slice(-INLINE_OUTPUT_CHARS) : null,
    };
  }

  /** An exception's message; a long one (`raise E("y" * 600000)`) is a preview naming the blob with the whole. */
  async function errorValue(text: string): Promise<string> {
    const { preview, blob } = await inlineOrBlob(blobs, text, INLINE.errorValue);
    return previewNamingBlob(preview, blob, INLINE.errorValue);
  }

  /** Brings the session's kernel up and, if its namespace is new, caught up with the log. */
  async function prepare(input: RunCellInput): Promise<Restored | null> {
    const { fresh } = await kernels.start(input.sessionId);
    if (!fresh) return null;
    const restored = input.firstCell ? null : await restore(input);
    await kernels.markReady(input.sessionId);
    return restored;
  }

  /**
   * A retry after the attempt before it failed or its worker died. The kernel outlives a worker,
   * so the cell may have run, may still be running, or may never have arrived: the kernel's own
   * record says which, and the cell never runs twice. When the kernel itself is gone or was
   * restarted, the earlier attempt's heartbeat says whether the cell had been sent; a cell lost
   * with its kernel is reported, not re-run. (Sent, then the worker died before that heartbeat
   * left, then the kernel died too: only that double fault runs the cell again, after a restore.)
   */
  async function resumeOrRun(
    input: RunCellInput,
    info: { scheduledAtMs: number; sentBefore: boolean },
    prepared: () => Promise<Restored | null>,
    sending: () => void,
  ): Promise<RunCellResult> {
    const left = Math.max(input.timeoutSeconds * 1000 - (Date.now() - info.scheduledAtMs), 1_000);
    const found = await kernels.resume(input.sessionId, input.cellId, { timeoutMs: left });
    // A step loop that left the cell running had restored the kernel for it first: that restore is this cell's.
    const before = input.leftByLoop?.restored ?? null;
    if (found.kind === 'finished') return { cell: await fieldsOf(found.result, before?.note ?? ''), restored: before?.fields ?? null };
    const kernelLost = found.kind === 'gone' || (found.kind === 'not-ready' && found.restarted);
    const restored = await prepared();
    if (!(kernelLost && info.sentBefore)) {
      return { cell: await execute(input, restored?.note ?? '', sending), restored: restored?.fields ?? null };
    }
    return {
      cell: lostCell(`${restored?.note ?? ''}[the kernel was lost while the cell ran; it was not re-run]`, 'the kernel died while its worker was down'),
      restored: restored?.fields ?? null,
    };
  }

  /**
   * One cell: run, or when `resume` is set (a retry, or a cell a step loop logged and may have
   * sent), asked of the kernel first so it never runs twice. `told` hears just before the cell
   * goes to the kernel, with the restore made for it, if any. A cell the host could not start or
   * whose kernel was lost is reported, not thrown.
   */
  async function cell(input: RunCellInput, resume: { sentBefore: boolean; scheduledAtMs: number } | null, told: (restored: Restored | null) => void): Promise<RunCellResult> {
    // Kept here, so a kernel lost after its restore still reports the restore.
    const done: { restored: Restored | null } = { restored: null };
    const sending = () => told(done.restored);
    const prepared = async () => (done.restored = await prepare(input));
    try {
      if (input.sentOnLostHost) {
        const restored = await prepared();
        return { cell: lostCell(`${restored?.note ?? ''}[the kernel was lost with its host while the cell ran; it was not re-run]`, 'its host was lost'), restored: restored?.fields ?? null };
      }
      if (resume) return await resumeOrRun(input, resume, prepared, sending);
      const restored = await prepared();
      return { cell: await execute(input, restored?.note ?? '', sending), restored: restored?.fields ?? null };
    } catch (e) {
      if (e instanceof LimitError) return { cell: refusedCell(e), restored: done.restored?.fields ?? null };
      if (!(e instanceof KernelLostError)) throw e;
      return { cell: lostCell(`[the kernel was lost while the cell ran; it was not re-run: ${e.message}]`, e.message), restored: done.restored?.fields ?? null };
    }
  }

  return {
    cell,
    async runCell(input: RunCellInput): Promise<RunCellResult> {
      const ctx = Context.current();
      // Heartbeat details reach the next attempt: whether this one got as far as sending the cell.
      let progress: CellProgress = { sentCellId: null };
      const sending = () => {
        progress = { sentCellId: input.cellId };
        ctx.heartbeat(progress);
      };
      const beat = setInterval(() => ctx.heartbeat(progress), 3_000);
      let leave: (reason: unknown) => void = () => undefined;
      const workerLeaving = new Promise<never>((_, reject) => (leave = reject));
      workerLeaving.catch(() => undefined); // raced below; this only keeps a late one from counting as unhandled
      const stop = () => {
        // A worker shutting down (a deploy) leaves the cell running: this attempt ends, and the next
        // one, on the next worker, finds the cell in the kernel's record, as after a crash.
        if (byWorkerShutdown(ctx)) leave(ctx.cancellationSignal.reason);
        else void kernels.interrupt(input.sessionId).catch(() => undefined);
      };
      ctx.cancellationSignal.addEventListener('abort', stop);
      const before = ctx.info.attempt > 1 ? ctx.info.heartbeatDetails as CellProgress | undefined : undefined;
      // A cell a step loop logged (and may have sent) is resumed as a retry is; the loop says whether it sent it.
      const sentBefore = input.leftByLoop ? input.leftByLoop.sent : before?.sentCellId === input.cellId;
      if (sentBefore) progress = { sentCellId: input.cellId };
      const resume = ctx.info.attempt > 1 || input.leftByLoop ? { sentBefore, scheduledAtMs: ctx.info.scheduledTimestampMs } : null;
      try {
        return await Promise.race([cell(input, resume, sending), workerLeaving]);
      } finally {
        clearInterval(beat);
        ctx.cancellationSignal.removeEventListener('abort', stop);
      }
    },

    shutdownKernel: ({ sessionId }: { sessionId: string }): Promise<void> => kernels.shutdown(sessionId),
    interruptKernel: ({ sessionId, cellId }: { sessionId: string; cellId: string }): Promise<void> => kernels.interruptCell(sessionId, cellId),
  };
}

