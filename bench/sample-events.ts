import type { EventBatchInput, RecurEventInput } from '../schemas';

type Item = EventBatchInput['events'][number];

/** Deterministic filler text of about `n` characters (±50%, by seed), shaped like code and prose. */
export function filler(n: number, seed: number): string {
  const words = ['result', 'df', '=', 'print(', ')', 'for', 'x', 'in', 'range(10):', 'total', '+=', 'value', '# check', 'items', '\n'];
  let state = (seed * 2654435761) >>> 0;
  const next = () => (state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x9e3779b9) >>> 0);
  const target = Math.round(n * (0.5 + (next() % 1000) / 1000));
  let out = '';
  while (out.length < target) out += words[next() % words.length] + ' ';
  return out.slice(0, target);
}

/**
 * The events of one agent step as a session logs them, with sizes like a working session's:
 * a model reply (~900 characters, its code also in the tool call), the cell request (~400)
 * and its result (~400 code + ~600 output).
 */
export function stepEvents(step: number, ts: number): RecurEventInput[] {
  const code = filler(400, step * 3 + 1);
  const callId = `call_${step}`;
  return [
    {
      type: 'ModelCalled', turn: step + 1, model: 'bench-model', provider: 'openai', tokensIn: 1200 + step, tokensOut: 180, costUsd: 0.0012,
      latencyMs: 900, response: filler(500, step * 3), toolCalls: [{ id: callId, name: 'python', arguments: JSON.stringify({ code }) }],
      stopReason: 'tool_call',
    },
    { type: 'CellRequested', cellId: `${ts}/${step}`, code, toolCallId: callId },
    { type: 'CellExecuted', requestId: `${ts}/${step}`, code, status: 'ok', outputs: filler(600, step * 3 + 2), durationMs: 12, executionCount: step + 1 },
  ];
}

/** `count` events of a session, step after step, each with the given timestamp. */
export function sessionEvents(count: number, firstStep: number, ts: number): Item[] {
  const out: Item[] = [];
  for (let step = firstStep; out.length < count; step++) {
    for (const event of stepEvents(step, ts)) if (out.length < count) out.push({ ts, event });
  }
  return out;
}
