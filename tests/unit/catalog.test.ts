import type { StoredEvent } from '../../schemas';
import type { RecurEventInput } from '../../schemas/generated/events';
import { CATALOG_TASK_CHARS, catalogEntries, emptyCatalog, foldCatalog } from '../../services/projector/catalog';
import { costTree } from '../../services/projector/cost-tree';
import { sampleSession } from './event-samples';

const started = (name: string, task = 't', model = 'scripted'): RecurEventInput => ({
  type: 'SessionStarted', task, name, model, depth: name === 'root' ? 0 : 1, maxDepth: 2, maxTurns: 10, cellTimeoutSeconds: 60,
});
const called = (tokensIn: number, tokensOut: number, costUsd: number): RecurEventInput => ({
  type: 'ModelCalled', turn: 1, model: 'm', provider: 'p', tokensIn, tokensOut, costUsd, latencyMs: 5, response: 'r', stopReason: 'end_turn', toolCalls: [],
});
const compacted: RecurEventInput = {
  type: 'Compacted', fromSeq: 0, toSeq: 1, droppedTurns: 1, droppedChars: 10, summary: 's', tokensBefore: 9, tokensAfter: 3, tokensIn: 7, tokensOut: 3, costUsd: 0.001,
};
const log = (id: string, events: RecurEventInput[]) => sampleSession(id, events).records as StoredEvent[];

const ROOT = log('r1', [started('root', 'x'.repeat(CATALOG_TASK_CHARS + 20), 'openai/gpt-4o'), called(10, 5, 0.01), { type: 'ModelSwitched', model: 'anthropic/claude', previous: 'openai/gpt-4o' }, { type: 'SessionCompleted', answer: 'a' }]);
const CHILD = log('r1/a', [started('a'), called(100, 50, 0.1), compacted, { type: 'SessionCompleted', answer: 'x' }]);
const OTHER = log('r2', [started('root', 'second'), called(1, 1, 0)]);
const HARNESS = log('harness:r1', [{ type: 'SessionCompleted', answer: 'not a session' }]);

const fold = (events: readonly StoredEvent[]) => {
  const catalog = emptyCatalog();
  const folded = events.map((e) => foldCatalog(catalog, e));
  return { entries: catalogEntries(catalog), folded };
};

describe('the catalog fold (services/projector/catalog.ts)', () => {
  test("one entry per root: the root's task (cut) and latest model, the tree's cost, tokens, turns, sessions, events and times", () => {
    const { entries } = fold([...ROOT.slice(0, 2), ...CHILD, ...ROOT.slice(2), ...OTHER]);
    expect(entries.map((e) => e.sessionId)).toEqual(['r1', 'r2']); // started at the same ms: by id
    const tree = costTree('r1', [...ROOT, ...CHILD])!;
    expect(entries[0]).toEqual({
      sessionId: 'r1', task: 'x'.repeat(CATALOG_TASK_CHARS), model: 'anthropic/claude', startTs: ROOT[0].ts, lastTs: ROOT[3].ts, ended: 'completed',
      costUsd: tree.total.costUsd, tokensIn: tree.total.tokensIn, tokensOut: tree.total.tokensOut, turns: 2, sessions: 2, events: 8,
    });
    expect(entries[0]).toMatchObject({ tokensIn: 117, tokensOut: 58 }); // the compaction counts, as in the cost tree
    expect(entries[1]).toMatchObject({ sessionId: 'r2', task: 'second', model: 'scripted', ended: null, turns: 1, sessions: 1, events: 2 });
  });

  test('a retried copy of an event is folded once; a harness log is no root', () => {
    const { entries, folded } = fold([...ROOT, ROOT[1], ...HARNESS, ...CHILD, CHILD[1]]);
    expect(folded.filter((f) => !f)).toHaveLength(3);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ turns: 2, events: 8, sessions: 2 });
  });

  test('a tree whose child shows up before its root is still one entry, its task filled in when the root arrives; a closed root says closed', () => {
    const closed = log('r3', [started('root', 'late'), { type: 'SessionCompleted', answer: 'a' }, { type: 'SessionClosed', reason: 'killed', round: 0, idle: true }]);
    const kid = log('r3/k', [started('k')]);
    const early = fold(kid).entries;
    expect(early).toEqual([expect.objectContaining({ sessionId: 'r3', task: '', model: '', sessions: 1, ended: null })]);
    expect(fold([...kid, ...closed]).entries).toEqual([expect.objectContaining({ sessionId: 'r3', task: 'late', sessions: 2, events: 4, ended: 'closed' })]);
  });
});
