import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import type { sessionActivities } from './proxies';
import type { SessionState } from './session-state';

/**
 * Snapshots the kernel and logs it; false when it failed, which is never fatal (the next cadence
 * tries again). `rides`: the event may ride the next activity (the cadence's snapshot, whose next
 * activity is the model call), saving a step an append of its own; a snapshot the kernel's
 * shutdown waits for is logged before it returns. Either way the snapshot becomes the session's
 * base (`lastSnapshot`) only once its event is in the log, and a restore, made by a cell, always
 * follows the model call that wrote it.
 */
export async function snapshotKernel(s: SessionState, acts: ReturnType<typeof sessionActivities>, coversSeq: number, rides = false): Promise<boolean> {
  let r;
  try {
    // A failed snapshot is no fault: a batch it carried rides on, to the next append.
    r = await s.withRide((ride) => acts.snapshotKernel({ sessionId: s.id, coversSeq, ...ride }));
  } catch (e) {
    if (!(e instanceof ActivityFailure) || isCancellation(e)) throw e;
    return false;
  }
  const build = () => [{
    type: 'KernelSnapshotted' as const, manifest: r.manifest, coversSeq, variables: r.variables, bytes: r.bytes,
    unsaved: r.unsaved, oversize: r.oversize, durationMs: r.durationMs,
  }];
  const commit = () => {
    s.cellsSinceSnapshot = 0;
    s.lastSnapshot = { manifest: r.manifest, coversSeq };
  };
  await (rides && s.snapshotRides ? s.ride(build, commit) : s.emit(build, commit));
  return true;
}
