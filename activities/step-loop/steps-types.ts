import type { ThrottleInfo } from '../../errors';
import type { BlobRef } from '../../schemas';
import type { CallModelResult } from '../call-model';
import type { Restored } from '../cell-fields';
import type { CellEnd } from '../../workflows/step-events';
import type { AppendEventsInput } from '../event-log';
import type { SnapshotMark, StepsDone } from './steps-done';

/** The log's head: the next seq, the last event's hash, and the trace ids the session's events carry. */
export interface LogHead {
  nextSeq: number;
  headHash: string;
  trace: { traceId: string | null; spanId: string | null };
}

export interface RunStepsInput {
  /** Names this allowance: a stop for it reaches every attempt, one not started yet too. */
  loopId: string;
  sessionId: string;
  rootId: string;
  parentId: string | null;
  agent: string;
  model: string;
  /** The log's head as the workflow knows it; a batch it fixed but has not seen logged is `append`, written first. */
  head: LogHead;
  append?: AppendEventsInput | null;
  /** The session's turn count: the next ModelCalled's turn and the model call's index. */
  turn: number;
  /** Plain steps it may take before it returns. */
  steps: number;
  /** No model call starts after this (epoch ms: a schedule's next tick, a deadline); null: none. */
  until: number | null;
  /** No model call starts once the steps have spent this much (the spend gate would ask first); null: no limit. */
  spendLeft: { tokens: number | null; costUsd: number | null };
  compactAtTokens: number | null;
  compactions: number;
  cellTimeoutSeconds: number;
  /** Cells the session has run: none yet, and a fresh kernel is no loss. */
  cellsRun: number;
  /** The latest logged snapshot, restored from if the kernel was lost. */
  lastSnapshot: SnapshotMark | null;
  snapshotEvery: number;
  cellsSinceSnapshot: number;
  /** The start scan's manifest, for the scan after each cell (activities/scan-after.ts). */
  workspaceStart: BlobRef | null;
  /** Read the log past `head` first even on a first attempt: the workflow takes the log back after steps that failed. */
  adopt?: boolean;
}

/** A cell whose CellRequested is logged and whose end is not: the workflow resumes it (RunCellInput.leftByLoop). */
export interface CellLeft {
  requestId: string;
  reqSeq: number;
  code: string;
  codeBlob: BlobRef | null;
  sent: boolean;
  /** A restore made for it before it was sent: its KernelRestored, logged with its end. */
  restored?: Restored | null;
}

export interface RunStepsResult {
  /** The head after everything it logged, the batch it was given included; before that batch when it was not logged (taking the log back writes none). */
  head: LogHead;
  /** What the events it logged change, the given batch's not included. */
  done: StepsDone;
  /** A reply it did not act on (an answer, a rejected reply, a compaction, or one that came as it was told to stop): unlogged, the workflow's to handle. */
  reply: CallModelResult | null;
  cellLeft: CellLeft | null;
  /** A cell that ended with its end not logged: the workflow logs it, with the scan the loop could not make. */
  cellEnded: CellEnd | null;
  /** A model call that failed for good (a retry cannot help): the session ends with it, as the workflow's own call would. */
  modelFailed: { type: string; message: string } | null;
  /** A model call the provider throttled past what the activity sleeps through: the workflow waits it out (workflows/throttle-wait.ts). Absent in results from before. */
  throttled?: ThrottleInfo | null;
  /** Why it returned. */
  why: 'allowance' | 'until' | 'stopped' | 'reply' | 'scan' | 'model';
}
