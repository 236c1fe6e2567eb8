import type { StoredEvent } from '../schemas';
import { planCellReplay, type PlannedCell } from '../log/plan-cell-replay';

/** Events that show a cell reached outside its kernel; re-running such a cell would repeat that. */
const HOST_EFFECTS = new Set(['SubagentSpawned', 'MessageSent', 'MessageRefused', 'MessageDelivered', 'HarnessEditRequested', 'GoalChanged', 'ScheduleChanged']);

export interface RestorePlan {
  /** Cells after the snapshot to run again, in order, so the namespace catches up with the log. */
  replay: PlannedCell[];
  /** Cells after the snapshot that are not run again, with why. */
  skipped: Array<{ requestId: string; reason: string }>;
  /** The last cell the lost kernel never finished, if any. */
  interruptedCell: string | null;
}

/**
 * Which logged cells a restored kernel must re-run: those after the snapshot's seq that finished
 * in the logged run and did nothing outside the kernel (no spawn, no message, no harness edit). Pure.
 */
export function planKernelRestore(events: readonly StoredEvent[], coversSeq: number): RestorePlan {
  const seqOf = new Map(events.map((e) => [e.eventId, e.seq]));
  const effects = events.filter((e) => HOST_EFFECTS.has(e.type) && !(e.event.type === 'MessageDelivered' && e.event.via === 'prompt'));
  const plan: RestorePlan = { replay: [], skipped: [], interruptedCell: null };
  for (const cell of planCellReplay(events)) {
    const from = seqOf.get(cell.requestId) ?? -1;
    const to = seqOf.get(cell.eventId) ?? -1;
    if (to <= coversSeq) continue;
    if (cell.logged.errorName === 'LimitError') {
      plan.skipped.push({ requestId: cell.requestId, reason: 'it never ran: the host had no kernel for it' });
    } else if (cell.logged.status === 'interrupted') {
      plan.interruptedCell = cell.requestId;
      plan.skipped.push({ requestId: cell.requestId, reason: 'interrupted when the kernel was lost' });
    } else if (effects.some((e) => e.seq > from && e.seq < to)) {
      plan.skipped.push({ requestId: cell.requestId, reason: 'it spawned or messaged other agents, or edited the harness' });
    } else {
      plan.replay.push(cell);
    }
  }
  return plan;
}
