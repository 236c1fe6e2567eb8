import { ZERO_HASH, encodeEventBatch, type EncodedBatch, type EventBatchInput, type RecurEventInput } from '../../schemas';

/** A short but complete session: start, a model call, one cell, a spawn, an answer. */
export const SAMPLE_EVENTS: RecurEventInput[] = [
  { type: 'SessionStarted', task: 'add 2 and 2', name: 'root', model: 'scripted', depth: 0, maxDepth: 2, maxTurns: 10, cellTimeoutSeconds: 60 },
  {
    type: 'ModelCalled', turn: 1, model: 'scripted', provider: 'scripted', tokensIn: 120, tokensOut: 30, costUsd: 0.0012,
    latencyMs: 5, response: 'Let me compute.', stopReason: 'tool_use',
    toolCalls: [{ id: 'call_1', name: 'python', arguments: '{"code":"print(2+2)"}' }],
  },
  { type: 'CellRequested', cellId: 'cell-1', code: 'print(2+2)', toolCallId: 'call_1' },
  { type: 'CellExecuted', requestId: 'r1/2', code: 'print(2+2)', status: 'ok', outputs: '4\n', durationMs: 12, executionCount: 1 },
  { type: 'SubagentSpawned', childId: 'r1/helper', name: 'helper', task: 'check it', model: 'scripted' },
  { type: 'SessionCompleted', answer: 'forty-two' },
];

/** Encodes `events` as session `sessionId`'s log from seq 0; ts is 1000 * seq + 1.7e12 (no clock). */
export function sampleSession(sessionId = 'r1', events: RecurEventInput[] = SAMPLE_EVENTS): EncodedBatch {
  const at = sessionId.lastIndexOf('/');
  const input: EventBatchInput = {
    sessionId,
    rootId: sessionId.split('/')[0],
    parentId: at < 0 ? null : sessionId.slice(0, at),
    fromSeq: 0,
    prevHash: ZERO_HASH,
    events: events.map((event, i) => ({ ts: 1_700_000_000_000 + 1000 * i, event })),
  };
  return encodeEventBatch(input);
}
