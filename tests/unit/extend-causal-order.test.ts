import type { RecurEventInput, StoredEvent } from '../../schemas';
import { causalOrder, extendCausalOrder } from '../../log/causal-order';
import { chain, ev, skewedTree } from '../helpers/replay-tree-fixture';

const ids = (events: readonly StoredEvent[]) => events.map((e) => e.eventId);

/** A deterministic generator, so every case is reproducible from its seed. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

/**
 * A root with three children whose clocks are skewed against it and each other: spawns, messages
 * between the children, child ends, the root's outcome deliveries and SubagentCompleted, at random times.
 */
function tree(rand: () => number): StoredEvent[] {
  const t = (base: number) => Math.floor(base + rand() * 400 - 200);
  const kids = ['r/a', 'r/b', 'r/c'];
  const root: Array<[number, RecurEventInput]> = [[t(0), ev.started('root', 0)], ...kids.map((k, i): [number, RecurEventInput] => [t(100 + i * 50), ev.spawned(k)])];
  const logs = kids.map((k, i) => {
    const other = kids[(i + 1) % kids.length];
    const items: Array<[number, RecurEventInput]> = [[t(150 + i * 50), ev.started(k.slice(2), 1, 'r')], [t(300), ev.model(1)]];
    if (rand() < 0.7) items.push([t(400), ev.sent(`${k}#m1`, k, other)]);
    return { k, other, items };
  });
  for (const { k, items } of logs) {
    const from = logs.find((l) => l.other === k)!;
    if (from.items.some(([, e]) => e.type === 'MessageSent')) items.push([t(450), ev.delivered(`${from.k}#m1`, from.k, k)]);
    items.push([t(600), ev.completed(`${k} done`)]);
  }
  for (const k of kids) root.push([t(700), ev.childDone(k)], [t(710), ev.delivered(`${k}#outcome`, k, 'r')]);
  root.push([t(900), ev.completed('all done')]);
  return [chain('r', root), ...logs.map((l) => chain(l.k, l.items))].flatMap((c) => c.records);
}

/** A live reader's state: some first events of each session held, the rest arriving in some order. */
function split(events: readonly StoredEvent[], rand: () => number): [StoredEvent[], StoredEvent[]] {
  const held: StoredEvent[] = [];
  const fresh: StoredEvent[] = [];
  for (const sessionId of new Set(events.map((e) => e.sessionId))) {
    const own = events.filter((e) => e.sessionId === sessionId);
    const keep = Math.floor(rand() * (own.length + 1));
    held.push(...own.slice(0, keep));
    fresh.push(...own.slice(keep));
  }
  return [held, fresh.sort(() => rand() - 0.5)];
}

describe('extending a causal order with later events (log/causal-order.ts)', () => {
  test('gives the causal order of the whole, for any split of a skewed tree into held and fresh events', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rand = random(seed);
      const all = tree(rand);
      const [held, fresh] = split(all, rand);
      expect([seed, ids(extendCausalOrder(causalOrder(held), fresh))]).toEqual([seed, ids(causalOrder(all))]);
    }
  });

  // The live reader's usual state: the tree up to some point of its causal order, the rest still to come.
  test('gives the causal order of the whole when the held events are a prefix of it and the rest come in any order', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rand = random(seed);
      const all = causalOrder(tree(rand));
      const k = Math.floor(rand() * (all.length + 1));
      const fresh = all.slice(k).sort(() => rand() - 0.5);
      expect([seed, ids(extendCausalOrder(causalOrder(all.slice(0, k)), fresh))]).toEqual([seed, ids(all)]);
    }
  });

  test('events arriving one at a time, in the order a live stream delivers them, keep the order of the whole', () => {
    const t = skewedTree();
    const all = [...t.root.records, ...t.a.records, ...t.b.records];
    let order: StoredEvent[] = [];
    for (const e of [...t.b.records, ...t.a.records, ...t.root.records]) order = extendCausalOrder(order, [e]);
    expect(ids(order)).toEqual(ids(causalOrder(all)));
  });

  test('a forged cycle held so far, or a repeat of a held event, still gives what merging the whole gives', () => {
    const x = chain('r/x', [[1, ev.started('x', 1, 'r')], [2, ev.delivered('r/y#m1', 'r/y', 'r/x')], [3, ev.sent('r/x#m1', 'r/x', 'r/y')], [9, ev.completed()]]).records;
    const y = chain('r/y', [[1, ev.started('y', 1, 'r')], [2, ev.delivered('r/x#m1', 'r/x', 'r/y')], [3, ev.sent('r/y#m1', 'r/y', 'r/x')], [4, ev.completed()]]).records;
    const held = [...x.slice(0, 3), ...y.slice(0, 3)];
    expect(ids(extendCausalOrder(causalOrder(held), [x[3], y[3]]))).toEqual(ids(causalOrder([...x, ...y])));
    expect(ids(extendCausalOrder(causalOrder(held), [x[2]]))).toEqual(ids(causalOrder([...held, x[2]])));
  });
});
