import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import type { sessionActivities } from './proxies';
import type { SessionState } from './session-state';

/** Snapshots the kernel and logs it; false when it failed, which is never fatal (the next cadence tries again). */
export async function snapshotKernel(s: SessionState, acts: ReturnType<typeof sessionActivities>, coversSeq: number): Promise<boolean> {
  let r;
  try {
    // A failed snapshot is no fault: a batch it carried rides on, to the next append.
    r = await s.withRide((ride) => acts.snapshotKernel({ sessionId: s.id, coversSeq, ...ride }));
  } catch (e) {
    if (!(e instanceof ActivityFailure) || isCancellation(e)) throw e;
    return false;
  }
  await s.emit(() => [{
    type: 'KernelSnapshotted', manifest: r.manifest, coversSeq, variables: r.variables, bytes: r.bytes,
    unsaved: r.unsaved, oversize: r.oversize, durationMs: r.durationMs,
  }], () => {
    s.cellsSinceSnapshot = 0;
    s.lastSnapshot = { manifest: r.manifest, coversSeq };
  });
  return true;
}
