import type { ProblemFrame } from '../../services/daemon/api-types';
import { causalOrder } from '../../log/causal-order';
import type { StoredEvent } from '../../schemas';
import { applyFrames, afterParam, fromReply, reconnectDelay } from '../../ui/state/tree-model';
import type { TreeReply } from '../../services/daemon/api-types';
import { chain, ev, skewedTree } from '../helpers/replay-tree-fixture';

const ids = (events: readonly StoredEvent[]) => events.map((e) => e.eventId);

function replyOf(events: readonly StoredEvent[]): TreeReply {
  const cursor: Record<string, number> = {};
  for (const e of events) cursor[e.sessionId] = Math.max(cursor[e.sessionId] ?? -1, e.seq);
  return { events: causalOrder(events), harness: [], problems: [], cursor };
}

describe('the viewer\'s session tree model (ui/state/tree-model.ts)', () => {
  const t = skewedTree();
  const all = [...t.root.records, ...t.a.records, ...t.b.records];

  test('live frames, however the sessions interleave and batch, leave the causal order of the whole log', () => {
    // Loaded: root's first two events and a's start; the rest arrives live, session by session in seq order.
    const loaded = [t.root.records[0], t.root.records[1], t.a.records[0]];
    const rest = all.filter((e) => !loaded.includes(e));
    const live = [...rest.filter((e) => e.sessionId === 'r/b'), ...rest.filter((e) => e.sessionId !== 'r/b')];
    let model = fromReply('r', replyOf(loaded));
    for (let i = 0; i < live.length; i += 3) model = applyFrames(model, live.slice(i, i + 3));
    expect(ids(model.events)).toEqual(ids(causalOrder(all)));
    expect(model.cursor).toEqual({ r: 5, 'r/a': 2, 'r/b': 2 });
  });

  test('a reconnect\'s repeats are dropped and a batch with nothing new keeps the model as it was', () => {
    const model = fromReply('r', replyOf(all));
    expect(applyFrames(model, [t.root.records[2], t.b.records[0]])).toBe(model);
    expect(applyFrames(model, [])).toBe(model);
  });

  test('problem frames are kept, harness events join the harness log, and each change bumps the version', () => {
    const model = fromReply('r', replyOf(t.root.records));
    const problem: ProblemFrame = { kind: 'problem', problem: 'undecodable', reason: 'bad bytes', partition: 0, offset: '7' };
    const harness = chain('harness:r', [[150, ev.completed()]]).records[0];
    const next = applyFrames(model, [problem, harness]);
    expect(next.problems).toEqual([problem]);
    expect(ids(next.harness)).toEqual(['harness:r/0']);
    expect(next.events).toBe(model.events);
    expect(next.version).toBe(model.version + 1);
    expect(next.cursor['harness:r']).toBe(0);
  });

  test('the stream\'s `after` is the cursor as URL-encoded JSON', () => {
    const model = fromReply('r', replyOf(t.a.records));
    expect(decodeURIComponent(afterParam(model))).toBe('{"r/a":2}');
    expect(afterParam(model)).not.toContain('/');
  });

  test('reconnects back off, doubling from half a second to at most ten', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50].map(reconnectDelay)).toEqual([500, 1000, 2000, 4000, 8000, 10000, 10000, 10000]);
  });
});
