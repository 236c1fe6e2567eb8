/*
 * The events a step logs that both step paths build: the workflow's (agent-session.ts,
 * workspace-log.ts, snapshot-kernel.ts, and reject-reply.ts and wrap-up.ts for a reply's
 * ModelCalled) and the worker's (activities/step-loop/run-steps.ts).
 * Built in one place, so a session's log reads the same whichever path took the step. Pure.
 */
import type { RecurEventInput } from '../schemas/generated/events';
import type { CallModelResult } from '../activities/call-model';
import type { CellFields, KernelRestoredFields } from '../activities/cell-fields';
import type { SnapshotKernelResult } from '../activities/snapshot/snapshot-activities';
import type { ScanWorkspaceResult } from '../activities/workspace/scan-workspace';

type EventOf<T extends RecurEventInput['type']> = Extract<RecurEventInput, { type: T }>;

/** A cell's end before it is logged: the cell's fields, and the restore its run needed. */
export interface CellEnd {
  requestId: string;
  code: string;
  cell: CellFields;
  restored: KernelRestoredFields | null;
}

export const modelCalled = (turn: number, reply: CallModelResult): EventOf<'ModelCalled'> => ({ type: 'ModelCalled', turn, ...reply.event });

/** A reply that asks for a cell (its `code`) as one append logs it: the call, then the cell under `cellId`. */
export function cellAsked(turn: number, reply: CallModelResult, code: string, cellId: string): [EventOf<'ModelCalled'>, EventOf<'CellRequested'>] {
  return [modelCalled(turn, reply), { type: 'CellRequested', cellId, code, codeBlob: reply.codeBlob, toolCallId: reply.toolCallId }];
}

export const cellExecuted = ({ requestId, code, cell }: CellEnd): EventOf<'CellExecuted'> => ({ type: 'CellExecuted', requestId, code, ...cell });

export const kernelRestored = (fields: KernelRestoredFields): EventOf<'KernelRestored'> => ({ type: 'KernelRestored', ...fields });

/** What a scan found changed on disk; null when it found nothing to log. */
export const workspaceChanged = ({ event }: ScanWorkspaceResult): EventOf<'WorkspaceChanged'> | null => (event === null ? null : { type: 'WorkspaceChanged', ...event });

/** A cell's end as one append logs it: the restore its run needed, its CellExecuted, then what it changed on disk. */
export function cellEndEvents(end: CellEnd, changed: EventOf<'WorkspaceChanged'> | null): RecurEventInput[] {
  return [...(end.restored ? [kernelRestored(end.restored)] : []), cellExecuted(end), ...(changed ? [changed] : [])];
}

export function kernelSnapshotted(r: SnapshotKernelResult, coversSeq: number): EventOf<'KernelSnapshotted'> {
  return {
    type: 'KernelSnapshotted', manifest: r.manifest, coversSeq, variables: r.variables, bytes: r.bytes,
    unsaved: r.unsaved, oversize: r.oversize, durationMs: r.durationMs,
  };
}
