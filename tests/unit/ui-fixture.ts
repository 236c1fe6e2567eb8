import type { RecurEventInput, StoredEvent } from '../../schemas';
import { causalOrder } from '../../log/causal-order';
import { chain, ev } from '../helpers/replay-tree-fixture';

/** A harness edit of `harness:<root>` as the harness workflow logs it. */
export const edit = (kind: string, name: string, after: string | null, result = 'applied', requestedBy: string | null = 'r'): RecurEventInput => ({
  type: 'HarnessEdited', action: after === null ? 'delete' : 'update', kind, name, before: null, after,
  trigger: { eventIds: [], reason: 'test' }, source: 'kernel', requestedBy, result, error: null, revertOf: null, refineId: null,
});

const goal = (status: 'active' | 'complete', tokensUsed: number): RecurEventInput => ({
  type: 'GoalChanged', change: status === 'active' ? 'set' : 'completed', objective: 'win', openEnded: false, status,
  tokenBudget: 1000, secondsBudget: null, costBudgetUsd: null, tokensUsed, costUsd: 0, secondsUsed: 1, reason: null,
});

const snapshot = (coversSeq: number): RecurEventInput => ({
  type: 'KernelSnapshotted', manifest: { sha256: 'a'.repeat(64), size: 10 }, coversSeq, variables: 1, bytes: 5, unsaved: [], oversize: [], durationMs: 2,
});

const paid = (turn: number, costUsd: number): RecurEventInput => ({ ...ev.model(turn), costUsd } as RecurEventInput);

/**
 * Root `r` with a tree budget, a goal, one cell and a snapshot, spawning `r/a` (which spends,
 * is unloaded and reloaded) and `r/b` (which fails); plus two harness edits.
 */
export function viewerTree(): { events: StoredEvent[]; harness: StoredEvent[] } {
  const root = chain('r', [
    [100, ev.started('root', 0)],
    [101, { type: 'BudgetSet', scope: 'tree', tokens: 1000, costUsd: 1, seconds: null, turns: null, note: 'test' } as RecurEventInput],
    [102, goal('active', 0)],
    [110, paid(1, 0.25)],
    [120, ev.request('x = 1')],
    [130, { ...ev.executed('r/4', 'x = 1', ''), durationMs: 10 } as RecurEventInput],
    [140, snapshot(5)],
    [150, ev.spawned('r/a')],
    [160, ev.spawned('r/b')],
    [400, ev.childDone('r/a')],
    [410, { type: 'SubagentCompleted', childId: 'r/b', status: 'failed', answer: '', error: 'boom' } as RecurEventInput],
    [420, goal('complete', 30)],
    [430, ev.completed('all done')],
  ]).records;
  const a = chain('r/a', [
    [155, ev.started('a', 1, 'r')],
    [200, paid(1, 0.5)],
    [250, { type: 'SessionUnloaded', manifest: null, coversSeq: null, idleSeconds: 60 } as RecurEventInput],
    [300, { type: 'SessionReloaded', messageId: 'r#m', from: 'r', unloadedSeq: 2 } as RecurEventInput],
    [350, ev.completed('a done')],
  ]).records;
  const b = chain('r/b', [[165, ev.started('b', 1, 'r')], [380, { type: 'SessionFailed', kind: 'internal', reason: 'boom' } as RecurEventInput]]).records;
  const harness = chain('harness:r', [[115, edit('memory', 'notes', '"one"')], [175, edit('memory', 'notes', '"two"', 'refused')], [260, edit('skill', 'sum', '{"code":"def s(): pass"}', 'applied', 'r/a')]]).records;
  return { events: causalOrder([...root, ...a, ...b]), harness };
}
