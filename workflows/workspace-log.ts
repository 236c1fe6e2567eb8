/*
 * Logs what changed on disk in the session's workspace (docs/workspace-log.md). Deterministic
 * workflow code: the scan is an activity, and only its small result (refs, a bounded file list)
 * travels through history. A scan that fails for good is skipped, never fatal: the workspace's
 * next scan, by this session or another sharing it, reports those changes, so none is lost.
 */
import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import type { sessionActivities } from './proxies';
import type { SessionState } from './session-state';

type Reason = 'start' | 'cell' | 'end';

export async function logWorkspace(s: SessionState, acts: ReturnType<typeof sessionActivities>, reason: Reason, requestId: string | null = null): Promise<void> {
  let r;
  try {
    // The key is fixed for this point of the log: the activity answers a retry with the first attempt's result.
    r = await acts.scanWorkspace({ sessionId: s.id, reason, requestId, key: `${s.id}/${reason}/${s.nextSeq}`, startManifest: s.workspaceStart });
  } catch (e) {
    if (!(e instanceof ActivityFailure) || isCancellation(e)) throw e;
    return;
  }
  const { event, manifest } = r;
  // A pointer into the blob store, not a logged fact: the end scan's net diff starts from it.
  if (reason === 'start') s.workspaceStart = manifest;
  if (event !== null) await s.emit(() => [{ type: 'WorkspaceChanged', ...event }]);
}
