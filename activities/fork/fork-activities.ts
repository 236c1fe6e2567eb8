import { RecurError } from '../../errors';
import { ZERO_HASH, type StoredEvent } from '../../schemas';
import type { AppendEventsInput, AppendEventsResult } from '../event-log';
import { checkForkPoint, foldFork, rekeyEvent, type ForkFold } from './plan-fork';

export interface CopyForkLogInput {
  forkId: string;
  originId: string;
  atSeq: number;
}

export interface CopyForkLogResult {
  nextSeq: number;
  headHash: string;
  /** The origin's hash at atSeq, for ForkedFrom. */
  originHash: string;
  fold: ForkFold;
}

export interface ForkActivities {
  copyForkLog(input: CopyForkLogInput): Promise<CopyForkLogResult>;
}

/**
 * The copy of a fork's history, run by the fork's workflow before anything else it logs: reads
 * the origin's own events, checks the fork point again on what it read, and appends events
 * 0..atSeq under the fork's id through the ordinary append (sealed by the worker's key, fed to
 * its transcript cache). The copies keep their seqs and timestamps, so a retry writes the same
 * bytes, and only the small fold travels back through Temporal, never an event.
 */
export function createForkActivities(deps: {
  readLog: (sessionId: string) => Promise<readonly StoredEvent[]>;
  appendEvents: (input: AppendEventsInput) => Promise<AppendEventsResult>;
}): ForkActivities {
  return {
    async copyForkLog({ forkId, originId, atSeq }) {
      const events = await deps.readLog(originId);
      if (events.length === 0) throw new RecurError(`no session ${originId} in the log: nothing to fork`);
      const check = checkForkPoint(events, originId, atSeq);
      if (!check.ok) throw new RecurError(check.reason);
      const copied = events.slice(0, atSeq + 1);
      const res = await deps.appendEvents({
        sessionId: forkId, rootId: forkId, parentId: null, fromSeq: 0, prevHash: ZERO_HASH,
        events: copied.map((e) => ({ ts: e.ts, event: rekeyEvent(e.event, originId, forkId) })),
      });
      return { nextSeq: res.nextSeq, headHash: res.headHash, originHash: copied[atSeq].hash, fold: foldFork(copied) };
    },
  };
}
