import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import type { sessionActivities } from './proxies';
import type { SessionState } from './session-state';
import type { RidingAppend } from '../activities/append-first';
import { kernelSnapshotted } from './step-events';

/**
 * Snapshots the kernel and logs it; false when it failed, which is never fatal (the next cadence
 * tries again). `rides`: the event may ride the next activity (the cadence's snapshot, whose next
 * activity is the model call), saving a step an append of its own; a snapshot the kernel's
 * shutdown waits for is logged before it returns. `beside`: the model call it runs beside, which
 * carries the riding batch in its place and is settled before the event is logged. Either way
 * the snapshot becomes the session's base (`lastSnapshot`) only once its event is in the log; a
 * restore, made by a cell's activity, may also start from one whose event that activity writes
 * before it (`snapshotRiding`).
 */
export async function snapshotKernel(
  s: SessionState, acts: ReturnType<typeof sessionActivities>, coversSeq: number,
  o: { rides?: boolean; beside?: Promise<unknown> } = {},
): Promise<boolean> {
  const { rides = false, beside } = o;
  let r;
  try {
    const take = (ride: RidingAppend) => acts.snapshotKernel({ sessionId: s.id, coversSeq, ...ride });
    // A failed snapshot is no fault: a batch it carried rides on, to the next append.
    r = await (beside ? take({}) : s.withRide(take));
  } catch (e) {
    if (!(e instanceof ActivityFailure) || isCancellation(e)) throw e;
    return false;
  }
  // Whichever finishes first, the event joins the log after what the call writes: the batches are the same every run.
  await beside?.catch(() => undefined);
  const build = () => [kernelSnapshotted(r, coversSeq)];
  const pointer = { manifest: r.manifest, coversSeq };
  let logged = false;
  const commit = () => {
    logged = true;
    s.cellsSinceSnapshot = 0;
    s.lastSnapshot = pointer;
    if (s.snapshotRiding === pointer) s.snapshotRiding = null;
  };
  if (!rides || !s.snapshotRides) {
    await s.emit(build, commit);
    return true;
  }
  await s.ride(build, commit);
  // Beside the model call its event may ride the next cell's own activity, which writes it before
  // anything else: that cell restores from it if its kernel is lost (run-requested-cell.ts).
  if (!logged && beside) s.snapshotRiding = pointer;
  return true;
}

/**
 * The cadence's snapshot, when a cell has made one due, started beside the model call: the call
 * never touches the kernel, so the snapshot's round trip hides behind it. The namespace holds
 * every cell logged so far and nothing since (only cells change it), so it covers the log's head.
 * The snapshot carries no batch: the last cell's end rides the model call, whose prompt needs it
 * logged, and its event is logged once the call has settled, whichever ends first. The caller
 * settles it before anything else reaches the kernel (the next cell) or the run ends. One that
 * fails is tried again after the next cell, as the cadence always did.
 */
export function snapshotBesideModel(s: SessionState, acts: ReturnType<typeof sessionActivities>, call: Promise<unknown>): Promise<boolean> | null {
  if (!s.snapshotDue) return null;
  s.snapshotDue = false;
  // The head before the call: the call's own events (a compaction, its spend) come after the cells it covers.
  return snapshotKernel(s, acts, s.nextSeq - 1, { rides: true, beside: call });
}
