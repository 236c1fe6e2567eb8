import type { RecurEventInput, StoredEvent } from '../../schemas';
import { causalOrder } from '../../log/causal-order';
import { chain, ev, skewedTree } from '../helpers/replay-tree-fixture';

const ids = (events: readonly StoredEvent[]) => events.map((e) => e.eventId);
const pos = (order: readonly StoredEvent[], eventId: string) => order.findIndex((e) => e.eventId === eventId);

/** A deterministic shuffle, so the test does not depend on input order without using randomness. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

describe('causal order of a session tree', () => {
  test('merges skewed logs so spawns, messages and child ends precede what they caused', () => {
    const t = skewedTree();
    const all = [...t.root.records, ...t.a.records, ...t.b.records];
    const order = causalOrder(all);
    expect(ids(order)).toEqual([
      'r/0', 'r/1', 'r/a/0', 'r/2', 'r/b/0', 'r/a/1', 'r/b/1', 'r/a/2', 'r/3', 'r/4', 'r/5', 'r/b/2',
    ]);
    // By ts alone the child would start before its spawn and b would read a message not yet sent.
    expect(t.a.records[0].ts).toBeLessThan(t.root.records[1].ts);
    expect(t.b.records[1].ts).toBeLessThan(t.a.records[1].ts);
  });

  test('does not depend on the order the logs were read in', () => {
    const t = skewedTree();
    const all = [...t.root.records, ...t.a.records, ...t.b.records];
    const expected = ids(causalOrder(all));
    for (const seed of [1, 2, 3, 42, 1234]) expect(ids(causalOrder(shuffled(all, seed)))).toEqual(expected);
  });

  test('keeps each session in seq order even where its timestamps run backwards', () => {
    const root = chain('r', [[500, ev.started('root', 0)], [100, ev.model(1)], [50, ev.completed()]]).records;
    const other = chain('q', [[200, ev.started('root', 0)], [300, ev.completed()]]).records;
    const order = causalOrder([...other, ...root]);
    expect(ids(order.filter((e) => e.sessionId === 'r'))).toEqual(['r/0', 'r/1', 'r/2']);
    expect(ids(order)).toEqual(['q/0', 'q/1', 'r/0', 'r/1', 'r/2']);
  });

  test('breaks ties by ts, then session id, then seq', () => {
    const a = chain('r/a', [[100, ev.started('a', 1, 'r')], [100, ev.completed()]]).records;
    const b = chain('r/b', [[100, ev.started('b', 1, 'r')], [100, ev.completed()]]).records;
    const order = causalOrder([...b, ...a]);
    expect(ids(order)).toEqual(['r/a/0', 'r/a/1', 'r/b/0', 'r/b/1']);
  });

  test('an outcome message and SubagentCompleted wait for the child end even when stamped earlier', () => {
    const root = chain('r', [[1, ev.started('root', 0)], [2, ev.spawned('r/c')], [3, ev.childDone('r/c')], [4, ev.delivered('r/c#outcome', 'r/c', 'r')]]).records;
    const child = chain('r/c', [[10, ev.started('c', 1, 'r')], [20, ev.completed()]]).records;
    const order = causalOrder([...root, ...child]);
    expect(pos(order, 'r/2')).toBeGreaterThan(pos(order, 'r/c/1'));
    expect(ids(order)).toEqual(['r/0', 'r/1', 'r/c/0', 'r/c/1', 'r/2', 'r/3']);
  });

  test('a retained child\'s new task and its later answer keep their order even when stamped earlier', () => {
    const tasked: RecurEventInput = { type: 'SubagentTasked', childId: 'r/c', name: 'c', task: 'again', messageId: 'r#m1' };
    const root = chain('r', [[1, ev.started('root', 0)], [2, ev.spawned('r/c')], [50, tasked], [51, ev.delivered('r/c#outcome-1', 'r/c', 'r')]]).records;
    const child = chain('r/c', [
      [10, ev.started('c', 1, 'r')], [20, ev.completed()], [40, ev.delivered('r#m1', 'r', 'r/c')],
      [60, { type: 'TaskEnded', round: 1, status: 'completed', answer: 'again done' }],
    ]).records;
    const order = causalOrder([...root, ...child]);
    expect(pos(order, 'r/c/2')).toBeGreaterThan(pos(order, 'r/2'));
    expect(pos(order, 'r/3')).toBeGreaterThan(pos(order, 'r/c/3'));
  });

  test('links to events outside the tree read constrain nothing (a subtree replay)', () => {
    const child = chain('r/c', [[10, ev.started('c', 1, 'r')], [20, ev.delivered('r#m1', 'r', 'r/c')], [30, ev.completed()]]).records;
    expect(ids(causalOrder(child))).toEqual(['r/c/0', 'r/c/1', 'r/c/2']);
  });

  test('a forged cycle of links still yields every event once, deterministically', () => {
    // x delivers y's message before sending its own, and y does the same: no order honours both.
    const x = chain('r/x', [[1, ev.started('x', 1, 'r')], [2, ev.delivered('r/y#m1', 'r/y', 'r/x')], [3, ev.sent('r/x#m1', 'r/x', 'r/y')]]).records;
    const y = chain('r/y', [[1, ev.started('y', 1, 'r')], [2, ev.delivered('r/x#m1', 'r/x', 'r/y')], [3, ev.sent('r/y#m1', 'r/y', 'r/x')]]).records;
    const order = causalOrder([...x, ...y]);
    expect(order).toHaveLength(6);
    expect(new Set(ids(order)).size).toBe(6);
    expect(ids(causalOrder([...y, ...x]))).toEqual(ids(order));
    expect(ids(order.filter((e) => e.sessionId === 'r/x'))).toEqual(['r/x/0', 'r/x/1', 'r/x/2']);
  });

  test('every link holds in a wider tree with many interleavings', () => {
    const kids = ['k1', 'k2', 'k3', 'k4'].map((k) => `r/${k}`);
    const root = chain('r', [
      [0, ev.started('root', 0)],
      ...kids.map((k, i): [number, ReturnType<typeof ev.spawned>] => [10 + i, ev.spawned(k)]),
      ...kids.map((k, i): [number, ReturnType<typeof ev.childDone>] => [20 + i, ev.childDone(k)]),
      [99, ev.completed()],
    ]).records;
    // Children stamped from clocks well behind the root's.
    const children = kids.flatMap((k, i) => chain(k, [
      [i, ev.started(k, 1, 'r')],
      [i + 1, ev.sent(`${k}#m1`, k, kids[(i + 1) % kids.length])],
      [i + 2, ev.delivered(`${kids[(i + 3) % kids.length]}#m1`, kids[(i + 3) % kids.length], k)],
      [i + 3, ev.completed()],
    ]).records);
    const order = causalOrder(shuffled([...root, ...children], 7));
    expect(order).toHaveLength(root.length + children.length);
    kids.forEach((k, i) => {
      expect(pos(order, `${k}/0`)).toBeGreaterThan(pos(order, `r/${1 + i}`));
      expect(pos(order, `r/${5 + i}`)).toBeGreaterThan(pos(order, `${k}/3`));
      const from = kids[(i + 3) % kids.length];
      expect(pos(order, `${k}/2`)).toBeGreaterThan(pos(order, `${from}/1`));
    });
  });
});
