import { ZERO_HASH, encodeEventBatch, type RecurEventInput, type StoredEvent } from '../../schemas';
import type { LogRecord } from '../../services/projector';
import { testLogKey } from './test-log-key';

/** The key every fixture event is signed with. */
export const FIXTURE_KEY = testLogKey();

/** Events for the replay and audit tests, each built the way the session workflow logs it. */
export const ev = {
  started: (name: string, depth: number, parentId: string | null = null): RecurEventInput => ({
    type: 'SessionStarted', task: `task of ${name}`, name, model: 'scripted', parentId, depth, maxDepth: 3, maxTurns: 10, cellTimeoutSeconds: 30,
  }),
  model: (turn: number, response = `reply ${turn}`): RecurEventInput => ({
    type: 'ModelCalled', turn, model: 'scripted', provider: 'scripted', tokensIn: 10, tokensOut: 5, costUsd: 0, latencyMs: 3, response, stopReason: 'end_turn',
  }),
  request: (code: string): RecurEventInput => ({ type: 'CellRequested', cellId: 'c', code }),
  executed: (requestId: string, code: string, outputs: string, status: 'ok' | 'error' | 'interrupted' = 'ok'): RecurEventInput => ({
    type: 'CellExecuted', requestId, code, status, outputs, durationMs: 4,
  }),
  spawned: (childId: string): RecurEventInput => ({
    type: 'SubagentSpawned', childId, name: childId.slice(childId.lastIndexOf('/') + 1), task: `task of ${childId}`, model: 'scripted',
  }),
  sent: (messageId: string, from: string, to: string): RecurEventInput => ({ type: 'MessageSent', messageId, from, to, text: `hello from ${from}` }),
  delivered: (messageId: string, from: string, to: string): RecurEventInput => ({
    type: 'MessageDelivered', messageId, from, to, text: `hello from ${from}`, via: 'prompt',
  }),
  childDone: (childId: string): RecurEventInput => ({ type: 'SubagentCompleted', childId, status: 'completed', answer: 'done' }),
  completed: (answer = 'done'): RecurEventInput => ({ type: 'SessionCompleted', answer }),
};

/** One session's chain from seq 0; each item is [ts, event]. */
export function chain(sessionId: string, items: Array<[number, RecurEventInput]>): { records: StoredEvent[]; values: Buffer[] } {
  const at = sessionId.lastIndexOf('/');
  const batch = encodeEventBatch({
    sessionId, rootId: sessionId.split('/')[0], parentId: at < 0 ? null : sessionId.slice(0, at),
    fromSeq: 0, prevHash: ZERO_HASH, events: items.map(([ts, event]) => ({ ts, event })),
  }, FIXTURE_KEY.signer);
  return { records: [...batch.records], values: [...batch.values] };
}

/** Kafka records for `values` of one session, keyed by it, at consecutive offsets of partition 0. */
export function records(sessionId: string, values: readonly Buffer[], firstOffset = 0): LogRecord[] {
  return values.map((value, i) => ({ partition: 0, offset: String(firstOffset + i), key: Buffer.from(sessionId), value }));
}

/**
 * A small tree: root spawns `a` and `b`; `a` messages `b`; both end; root learns of `a`'s end.
 * Timestamps are skewed the way separate workers' clocks and the workflow's logging order make
 * them: `a` starts "before" root's spawn, and b's delivery is stamped before a's MessageSent.
 */
export function skewedTree(root = 'r') {
  const [a, b] = [`${root}/a`, `${root}/b`];
  const rootLog = chain(root, [
    [100, ev.started('root', 0)],
    [110, ev.spawned(a)],
    [120, ev.spawned(b)],
    [300, ev.childDone(a)],
    [310, ev.delivered(`${a}#outcome`, a, root)],
    [400, ev.completed('all done')],
  ]);
  const aLog = chain(a, [[105, ev.started('a', 1, root)], [200, ev.sent(`${a}#m1`, a, b)], [250, ev.completed('a done')]]);
  const bLog = chain(b, [[125, ev.started('b', 1, root)], [150, ev.delivered(`${a}#m1`, a, b)], [500, ev.completed('b done')]]);
  return { root: rootLog, a: aLog, b: bLog, ids: { root, a, b } };
}
