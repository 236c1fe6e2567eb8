import { ZERO_HASH, encodeEventBatch, type RecurEventInput } from '../../schemas';
import type { TreeLine } from '../../services/daemon/api-types';
import { TREE_CHUNK, TreeAssembler, parseTreeBody, treeLines } from '../../services/daemon/tree-lines';
import { EventCollector } from '../../services/projector';
import { causalOrder } from '../../log/causal-order';
import { testLogKey } from '../helpers/test-log-key';

const key = testLogKey();

/** The tree `r` (a root and one child) of `n` events each, read as the daemon's cache reads it. */
function readTree(n: number) {
  const events = (name: string): RecurEventInput[] => Array.from({ length: n }, (_, i) => ({ type: 'SessionCompleted', answer: `${name} ${i}` }));
  const tree = new EventCollector({ sessionId: 'r', descendants: true });
  const harness = new EventCollector({ sessionId: 'harness:r', descendants: false });
  for (const id of ['r', 'r/a']) {
    const b = encodeEventBatch({
      sessionId: id, rootId: 'r', parentId: id === 'r' ? null : 'r', fromSeq: 0, prevHash: ZERO_HASH,
      events: events(id).map((event, i) => ({ ts: 1_700_000_000_000 + 2 * i + (id === 'r' ? 0 : 1), event })),
    }, key.signer);
    b.values.forEach((value, i) => [tree, harness].forEach((c) => c.accept({ partition: 0, offset: String(i), key: Buffer.from(id), value })));
  }
  return { tree: tree.result(), harness: harness.result() };
}

describe('the tree route\'s JSON lines (services/daemon/tree-lines.ts)', () => {
  it('writes a head with the sizes, the events in causal order in chunks, and an end; reads them back whole', () => {
    const view = readTree(TREE_CHUNK);
    const lines = [...treeLines(view)];
    const parsed = lines.map((l) => JSON.parse(l) as TreeLine);
    expect(parsed.map((l) => l.kind)).toEqual(['head', 'events', 'events', 'end']);
    expect(parsed[0]).toMatchObject({ kind: 'head', counts: { r: TREE_CHUNK, 'r/a': TREE_CHUNK }, cursor: { r: TREE_CHUNK - 1, 'r/a': TREE_CHUNK - 1 } });
    const reply = parseTreeBody(lines.join('\n') + '\n');
    expect(reply.events.map((e) => e.eventId)).toEqual(causalOrder(view.tree.events).map((e) => e.eventId));
    expect(reply.events[1]).toEqual(JSON.parse(JSON.stringify(causalOrder(view.tree.events)[1])));
  });

  it('an empty tree is a head and an end', () => {
    const lines = [...treeLines(readTree(0))].map((l) => JSON.parse(l) as TreeLine);
    expect(lines).toEqual([{ kind: 'head', counts: {}, harness: [], problems: [], cursor: {} }, { kind: 'end' }]);
  });

  it('refuses lines out of order, of no known kind, after the end, and a body without its end', () => {
    const head: TreeLine = { kind: 'head', counts: {}, harness: [], problems: [], cursor: {} };
    expect(() => new TreeAssembler().accept({ kind: 'events', events: [] })).toThrow(/unexpected "events" line/);
    const twice = new TreeAssembler();
    twice.accept(head);
    expect(() => twice.accept(head)).toThrow(/unexpected "head" line/);
    expect(() => twice.accept({ kind: 'rows' } as unknown as TreeLine)).toThrow(/unexpected "rows" line/);
    twice.accept({ kind: 'end' });
    expect(() => twice.accept({ kind: 'end' })).toThrow(/after its end line/);
    expect(() => parseTreeBody(JSON.stringify(head))).toThrow(/cut short/);
  });
});
