import type { BlobRef } from '../schemas/generated/events';
import type { CellFields, KernelRestoredFields, Restored } from './cell-fields';
import type { CallModelInput, CallModelResult } from './call-model';
import type { AppendEventsInput, AppendEventsResult } from './event-log';
import type { AppendedFirst, RidingAppend } from './append-first';
import type { ScanAfter, Scanned } from './scan-after';
import type { SnapshotKernelInput, SnapshotKernelResult } from './snapshot/snapshot-activities';
import type { RunGateInput, RunGateResult } from './run-gate';
import type { RunStepsInput, RunStepsResult } from './step-loop/steps-types';
import type { PlaceReply } from '../workflows/hosts/host-messages';
import type { ReserveReply, TreeBudgetReply, TreeSpendReport } from '../workflows/messages';
import type { Slice } from '../workflows/tree-ledger';
import type { ScanWorkspaceInput, ScanWorkspaceResult } from './workspace/scan-workspace';

export interface RunCellInput {
  sessionId: string;
  rootId: string;
  /** The CellRequested event id; also the Jupyter msg_id, so a retry can find the run. */
  cellId: string;
  /** A preview when codeBlob is set; the cell runs the blob's text. */
  code: string;
  codeBlob?: BlobRef | null;
  timeoutSeconds: number;
  /** False once the session has run a cell: a fresh kernel then means its namespace was lost. */
  firstCell: boolean;
  /** The session's latest snapshot, restored (then the cells after it re-run) if the kernel was lost. */
  restoreFrom: { manifest: BlobRef; coversSeq: number } | null;
  /** seq of this cell's CellRequested: the log up to it says which cells a restore re-runs. */
  throughSeq: number;
  /** The cell had been sent to a kernel lost with its host (docs/hosts.md): restore, then report it interrupted, never run it. */
  sentOnLostHost?: boolean;
  /**
   * The cell's CellRequested was logged by the session's step loop, which left it in flight: ask
   * the kernel what became of it, as a retry does. `sent`: whether the loop got as far as sending
   * it; `restored`: the restore the loop made before it sent it, which is this cell's to report.
   */
  leftByLoop?: { sent: boolean; restored?: Restored | null } | null;
}

/** A session's ask of its tree's root before a model call, or its report after one (activities/tree-sessions.ts). */
export type TreeAsk = TreeSpendReport & { rootId: string; callIndex: number };

export interface RunCellResult {
  cell: CellFields;
  /** Set when the kernel had been lost and was restored before this cell ran. */
  restored: KernelRestoredFields | null;
}

/** Everything the session workflow may ask of the world. */
export interface SessionActivities {
  appendEvents(input: AppendEventsInput): Promise<AppendEventsResult>;
  /** These three, and a tree-budget ask, may carry a batch of the session's events to append before their work (workflows/session-log.ts `ride`). */
  callModel(input: CallModelInput & RidingAppend): Promise<CallModelResult & AppendedFirst>;
  /** A cell's activity may also scan the workspace once the cell has ended (activities/scan-after.ts). */
  runCell(input: RunCellInput & RidingAppend & ScanAfter): Promise<RunCellResult & AppendedFirst & Scanned>;
  shutdownKernel(input: { sessionId: string }): Promise<void>;
  /** Interrupts the kernel's running cell (SIGINT through the Jupyter server); an idle kernel ignores it. */
  /** An operator's interrupt of one cell (activities/kernel/cell-interrupts.ts). */
  interruptKernel(input: { sessionId: string; cellId: string }): Promise<void>;
  snapshotKernel(input: SnapshotKernelInput & RidingAppend): Promise<SnapshotKernelResult & AppendedFirst>;
  /** Plain steps run by the worker, on the session's host (activities/step-loop/run-steps.ts). */
  runSteps(input: RunStepsInput): Promise<RunStepsResult>;
  /** Tells an allowance of runSteps to return at its next chance. */
  stopSteps(input: { loopId: string }): Promise<void>;
  runGate(input: RunGateInput): Promise<RunGateResult>;
  reserveTreeSession(input: { rootId: string; childId: string; slice?: Slice | null }): Promise<ReserveReply>;
  chargeTreeBudget(input: TreeAsk & RidingAppend): Promise<TreeBudgetReply & AppendedFirst>;
  /** A git worktree of the parent's workspace for a child, recorded as the child's workspace (docs/workspace.md). */
  prepareWorktree(input: { rootId: string; parentId: string; childId: string }): Promise<{ ok: true; workspace: string } | { ok: false; reason: string }>;
  scanWorkspace(input: ScanWorkspaceInput): Promise<ScanWorkspaceResult>;
  /**
   * The host the session's kernel goes to, chosen by the registry (`key`: the session's id and seq,
   * so a retry gets the same host); never `exclude`, the host it was just lost with.
   */
  placeSession(input: { sessionId: string; key: string; exclude?: string | null }): Promise<PlaceReply>;
}
