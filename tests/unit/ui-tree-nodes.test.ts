import type { RecurEventInput, StoredEvent } from '../../schemas';
import { nodeStatuses, treeNodes } from '../../ui/state/tree-nodes';
import { chain, ev, skewedTree } from '../helpers/replay-tree-fixture';

const at = (items: RecurEventInput[]): Array<[number, RecurEventInput]> => items.map((e, i) => [100 + i, e]);
const log = (id: string, items: RecurEventInput[]): StoredEvent[] => chain(id, at(items)).records;
const paid = (costUsd: number): RecurEventInput => ({ ...(ev.model(1) as Extract<RecurEventInput, { type: 'ModelCalled' }>), costUsd });

const unloaded: RecurEventInput = { type: 'SessionUnloaded', manifest: null, coversSeq: null, idleSeconds: 60 };
const reloaded: RecurEventInput = { type: 'SessionReloaded', messageId: 'r#m2', from: 'r', unloadedSeq: 2 };
const roundDone = (status: 'completed' | 'failed' | 'cancelled'): RecurEventInput => ({ type: 'TaskEnded', round: 1, status, answer: null, reason: null });
const failed = (kind: 'cancelled' | 'budget'): RecurEventInput => ({ type: 'SessionFailed', kind, reason: 'stop', error: null });
const closed: RecurEventInput = { type: 'SessionClosed', reason: 'killed', round: 1, idle: true };

describe('the session tree view\'s nodes (ui/state/tree-nodes.ts)', () => {
  test('lists the tree depth first with each session\'s own cost and turns and its subtree\'s cost', () => {
    const events = [
      ...log('r', [ev.started('root', 0), paid(0.5), ev.spawned('r/b'), ev.spawned('r/a')]),
      ...log('r/b', [ev.started('b', 1, 'r'), paid(0.25), paid(0.25)]),
      ...log('r/a', [ev.started('a', 1, 'r')]),
      ...log('r/a/x', [ev.started('x', 2, 'r/a'), paid(1)]),
    ];
    expect(treeNodes('r', events)).toEqual([
      { sessionId: 'r', name: 'root', model: 'scripted', status: 'running', costUsd: 0.5, turns: 1, totalCostUsd: 2, depth: 0 },
      { sessionId: 'r/a', name: 'a', model: 'scripted', status: 'running', costUsd: 0, turns: 0, totalCostUsd: 1, depth: 1 },
      { sessionId: 'r/a/x', name: 'x', model: 'scripted', status: 'running', costUsd: 1, turns: 1, totalCostUsd: 1, depth: 2 },
      { sessionId: 'r/b', name: 'b', model: 'scripted', status: 'running', costUsd: 0.5, turns: 2, totalCostUsd: 0.5, depth: 1 },
    ]);
  });

  test('each session\'s state is what its own log leaves it in', () => {
    const cases: Array<[string, RecurEventInput[], string]> = [
      ['ended', [ev.completed()], 'completed'],
      ['failed', [failed('budget')], 'failed'],
      ['cancelled', [failed('cancelled')], 'cancelled'],
      ['unloaded', [ev.completed(), unloaded], 'unloaded'],
      ['reloaded', [ev.completed(), unloaded, reloaded], 'running'],
      ['retasked', [ev.completed(), ev.delivered('r#m1', 'r', 'r/retasked')], 'running'],
      ['retained', [ev.completed(), ev.delivered('r#m1', 'r', 'r/retained'), roundDone('completed')], 'retained'],
      ['roundfailed', [ev.completed(), ev.delivered('r#m1', 'r', 'r/roundfailed'), roundDone('failed')], 'failed'],
      ['killedidle', [ev.completed(), ev.delivered('r#m1', 'r', 'r/killedidle'), roundDone('completed'), closed], 'completed'],
      ['killedbusy', [ev.completed(), ev.delivered('r#m1', 'r', 'r/killedbusy'), roundDone('cancelled'), closed], 'cancelled'],
      ['working', [paid(0)], 'running'],
    ];
    const events = cases.flatMap(([name, items]) => log(`r/${name}`, [ev.started(name, 1, 'r'), ...items]));
    const statuses = nodeStatuses(events);
    expect(cases.map(([name]) => [name, statuses.get(`r/${name}`)])).toEqual(cases.map(([name, , want]) => [name, want]));
  });

  test('a finished tree\'s sessions all show completed', () => {
    const t = skewedTree();
    const nodes = treeNodes('r', [...t.root.records, ...t.a.records, ...t.b.records]);
    expect(nodes.map((n) => [n.sessionId, n.status])).toEqual([['r', 'completed'], ['r/a', 'completed'], ['r/b', 'completed']]);
  });

  test('no nodes while the root\'s start is not in the log', () => {
    expect(treeNodes('r', log('r/a', [ev.started('a', 1, 'r')]))).toEqual([]);
  });
});
