import type { BlobRef, RecurEventInput } from '../../schemas';

/** A snapshot the session may restore from: its manifest and the last seq it covers. */
export interface SnapshotMark {
  manifest: { sha256: string; size: number };
  coversSeq: number;
}

/** What logged steps changed in the session's state: the workflow applies it as it would have applied each event. */
export interface StepsDone {
  /** Each model call logged, in order: its tokens (in and out) and cost. */
  calls: Array<{ tokens: number; costUsd: number }>;
  /** Cells whose end was logged. */
  cellsEnded: number;
  /** Cells since the last logged snapshot, counting from `cellsSinceSnapshot` before the steps. */
  cellsSinceSnapshot: number;
  /** The last snapshot logged, if the steps logged one. */
  lastSnapshot: SnapshotMark | null;
  /** The last CellRequested with no CellExecuted after it: the cell left in flight. */
  openCell: { requestId: string; reqSeq: number; code: string; codeBlob: BlobRef | null } | null;
}

/** Folds logged step events (from seq `fromSeq`) into what they change. Pure. */
export function stepsDone(events: readonly RecurEventInput[], fromSeq: number, cellsSinceSnapshot: number): StepsDone {
  const done: StepsDone = { calls: [], cellsEnded: 0, cellsSinceSnapshot, lastSnapshot: null, openCell: null };
  events.forEach((e, i) => {
    if (e.type === 'ModelCalled') done.calls.push({ tokens: e.tokensIn + e.tokensOut, costUsd: e.costUsd });
    else if (e.type === 'CellRequested') done.openCell = { requestId: e.cellId, reqSeq: fromSeq + i, code: e.code, codeBlob: e.codeBlob ?? null };
    else if (e.type === 'CellExecuted') {
      done.cellsEnded++;
      done.cellsSinceSnapshot++;
      if (done.openCell?.requestId === e.requestId) done.openCell = null;
    } else if (e.type === 'KernelSnapshotted') {
      done.lastSnapshot = { manifest: e.manifest, coversSeq: e.coversSeq };
      done.cellsSinceSnapshot = 0;
    }
  });
  return done;
}
