/*
 * Logs what changed on disk in the session's workspace (docs/workspace-log.md). Deterministic
 * workflow code: the scan is an activity, and only its small result (refs, a bounded file list)
 * travels through history. A scan that fails for good is skipped, never fatal: the workspace's
 * next scan, by this session or another sharing it, reports those changes, so none is lost.
 */
import { ActivityFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import { cellEndEvents, cellExecuted, kernelRestored, workspaceChanged, type CellEnd } from './step-events';
import type { ScanWorkspaceInput, ScanWorkspaceResult } from '../activities/workspace/scan-workspace';
import type { RecurEventInput } from '../schemas/generated/events';
import type { sessionActivities } from './proxies';
import type { SessionState } from './session-state';
import { outsideChanges } from './approvals/outside-changes';

type Acts = ReturnType<typeof sessionActivities>;
type Reason = 'start' | 'cell' | 'end';
type WorkspaceChanged = Extract<RecurEventInput, { type: 'WorkspaceChanged' }>;

export async function logWorkspace(s: SessionState, acts: Acts, reason: Reason, requestId: string | null = null): Promise<void> {
  const event = await scanWorkspace(s, acts, scanInput(s, reason, requestId));
  if (event !== null) await s.emit(() => [event], () => s.outsideChanges.push(...outsideChanges(event)));
}

/**
 * Logs a cell's end: the KernelRestored its run needed, its CellExecuted and what it changed on
 * disk, in one append: a step that writes files costs one round trip less than a scan logged on
 * its own. The scan runs before the append and is not cancelled, so a session cancelled meanwhile
 * still logs the cell's end. The batch rides the next activity (SessionLog.ride): the model
 * call, mostly. Resolves to the CellExecuted's seq.
 */
export async function logCellEnd(s: SessionState, acts: Acts, end: CellEnd, scanned: ScanWorkspaceResult | null): Promise<number> {
  const { requestId, restored } = end;
  if (!s.cellEndInOneAppend) {
    // Runs from before: an append each, the scan after the cell's end is logged.
    if (restored) await s.emit(() => [kernelRestored(restored)]);
    const seq = await s.emit(() => [cellExecuted(end)]);
    await logWorkspace(s, acts, 'cell', requestId);
    return seq;
  }
  // The cell's activity scanned the workspace after the cell (activities/scan-after.ts); where it
  // did not (the cell failed, the scan did, or the workspace is over the walk's limits), the
  // workflow scans, with the same key: a scan the activity got as far as recording is the answer.
  const changed = s.scanInCell && scanned
    ? workspaceChanged(scanned)
    : await CancellationScope.nonCancellable(() => scanWorkspace(s, acts, s.scanInCell ? cellScan(s, requestId) : scanInput(s, 'cell', requestId)));
  const first = await s.ride(() => cellEndEvents(end, changed), () => s.outsideChanges.push(...outsideChanges(changed)));
  return first + (restored ? 1 : 0);
}

/**
 * What a scan is asked. The key is fixed for this point of the log, so the activity answers a
 * retry with the first attempt's result.
 */
function scanInput(s: SessionState, reason: Reason, requestId: string | null, key = `${s.id}/${reason}/${s.nextSeq}`): ScanWorkspaceInput {
  return { sessionId: s.id, reason, requestId, key, startManifest: s.workspaceStart };
}

/** The scan after the cell `requestId` names, whoever makes it (patch scan-in-cell): one key, of a shape no other scan's has. */
export const cellScan = (s: SessionState, requestId: string): ScanWorkspaceInput => scanInput(s, 'cell', requestId, `${requestId}/scan`);

/** The WorkspaceChanged a scan now finds to log; null when nothing changed or the scan failed for good. */
async function scanWorkspace(s: SessionState, acts: Acts, input: ScanWorkspaceInput): Promise<WorkspaceChanged | null> {
  let r;
  try {
    r = await acts.scanWorkspace(input);
  } catch (e) {
    if (!(e instanceof ActivityFailure) || isCancellation(e)) throw e;
    return null;
  }
  // A pointer into the blob store, not a logged fact: the end scan's net diff starts from it.
  if (input.reason === 'start') s.workspaceStart = r.manifest;
  return workspaceChanged(r);
}
