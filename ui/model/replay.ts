/*
 * The replay's state as of an event: goals, children and the latest kernel snapshot, folded over
 * the rows up to it. Checkpoints every CHECKPOINT_EVERY rows make any position cost at most that
 * many steps, so a scrubber dragged or stepped across a 100,000-event tree stays smooth. Pure.
 */
import type { GoalChanged, KernelSnapshotted, StoredEvent } from '../../schemas';
import type { Row } from './rows';

export const CHECKPOINT_EVERY = 512;

export type ChildStatus = 'running' | 'unloaded' | 'completed' | 'failed' | 'cancelled';

export interface ReplayState {
  /** Each session's latest goal change. */
  readonly goals: ReadonlyMap<string, GoalChanged>;
  /** Each spawned session's status, by session id. */
  readonly children: ReadonlyMap<string, ChildStatus>;
  /** The tree's latest kernel snapshot, whichever session took it. */
  readonly snapshot: StoredEvent<KernelSnapshotted> | null;
}

interface Mutable {
  goals: Map<string, GoalChanged>;
  children: Map<string, ChildStatus>;
  snapshot: StoredEvent<KernelSnapshotted> | null;
}

const empty = (): Mutable => ({ goals: new Map(), children: new Map(), snapshot: null });
const copy = (s: ReplayState): Mutable => ({ goals: new Map(s.goals), children: new Map(s.children), snapshot: s.snapshot });

function apply(s: Mutable, e: StoredEvent): void {
  const ev = e.event;
  switch (ev.type) {
    case 'GoalChanged':
      s.goals.set(e.sessionId, ev);
      break;
    case 'SubagentSpawned':
    case 'SubagentTasked':
      s.children.set(ev.childId, 'running');
      break;
    case 'SubagentCompleted':
      s.children.set(ev.childId, ev.status);
      break;
    // A retained child's own log says when its kernel went and came back.
    case 'SessionUnloaded':
      if (s.children.has(e.sessionId)) s.children.set(e.sessionId, 'unloaded');
      break;
    case 'SessionReloaded':
      if (s.children.has(e.sessionId)) s.children.set(e.sessionId, 'running');
      break;
    case 'KernelSnapshotted':
      s.snapshot = e as StoredEvent<KernelSnapshotted>;
      break;
    default:
      break;
  }
}

export interface ReplayIndex {
  /** State after rows 0..i, for i in -1..rows.length-1. */
  stateAfter(i: number): ReplayState;
}

export function replayIndex(rows: readonly Row[]): ReplayIndex {
  const checkpoints: ReplayState[] = [empty()];
  const running = empty();
  rows.forEach((r, i) => {
    apply(running, r.event);
    if ((i + 1) % CHECKPOINT_EVERY === 0) checkpoints.push(copy(running));
  });
  return {
    stateAfter(i) {
      const last = Math.min(i, rows.length - 1);
      const c = Math.floor((last + 1) / CHECKPOINT_EVERY);
      const s = copy(checkpoints[c]);
      for (let j = c * CHECKPOINT_EVERY; j <= last; j++) apply(s, rows[j].event);
      return s;
    },
  };
}
