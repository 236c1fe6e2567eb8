import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AnthropicStream } from '../../activities/model/anthropic-stream';
import { OpenAIStream } from '../../activities/model/openai-stream';
import { cellNote, checkReply } from '../../activities/model/reply-check';
import { responseFromDraft, type WireStream } from '../../activities/model/streaming-call';
import { buildPrompt } from '../../activities/prompt/build-prompt';
import type { StoredEvent } from '../../schemas';
import type { RecurEventInput } from '../../schemas/generated/events';
import { MAX_REFUSALS_IN_A_ROW, MAX_REJECTED_IN_A_ROW, afterRejected } from '../../workflows/reject-reply';

/*
 * The malformed shapes real models send (tests/fixtures/replies), each through the whole path:
 * the provider's stream fold, the neutral response, the model activity's check, the workflow's
 * decision, and the prompt the model reads next. None may crash, and none may end the session
 * silently: each is either run, answered, or rejected with a note and asked again.
 */
interface Fixture {
  description: string;
  wire: 'openai' | 'anthropic';
  events: string[];
  expect: { code: string | null; problem: string | null; note?: string; cellNote?: string; answer?: boolean };
}

const DIR = join(__dirname, '..', 'fixtures', 'replies');
const fixtures = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort()
  .map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Fixture] as const);

const request = { model: 'm', system: 'sys', messages: [{ role: 'user' as const, content: 'compute 17 * 23' }] };

function fold(f: Fixture) {
  const stream: WireStream = f.wire === 'openai' ? new OpenAIStream('openai') : new AnthropicStream('anthropic');
  for (const data of f.events) stream.onEvent({ event: 'message', data });
  return responseFromDraft(f.wire, request, stream.finish(), { latencyMs: 1, attempts: 1 });
}

function stored(events: RecurEventInput[]): StoredEvent[] {
  return events.map((event, seq) => ({ event, type: event.type, seq, sessionId: 'r1', eventId: `r1/${seq}` }) as unknown as StoredEvent);
}

const started: RecurEventInput = { type: 'SessionStarted', task: 'compute 17 * 23', name: 'root', model: 'm', depth: 0, maxDepth: 2, maxTurns: 10, cellTimeoutSeconds: 60 };

function modelCalled(res: ReturnType<typeof fold>): RecurEventInput {
  return {
    type: 'ModelCalled', turn: 1, model: res.model, provider: res.provider, tokensIn: res.usage.inputTokens, tokensOut: res.usage.outputTokens,
    costUsd: 0, latencyMs: 1, response: res.text, toolCalls: [], stopReason: res.stopReason,
  };
}

test('the fixture set covers every shape the brief names', () => {
  expect(fixtures.length).toBeGreaterThanOrEqual(15);
  expect(new Set(fixtures.map(([, f]) => f.expect.problem))).toEqual(new Set([null, 'unclosed_fence', 'bad_tool_call', 'empty', 'refusal', 'cut_off']));
});

describe.each(fixtures)('%s', (_name, f) => {
  test(f.description, () => {
    const res = fold(f);
    expect(res.code).toBe(f.expect.code);
    const rejected = checkReply(res);
    expect(rejected?.problem ?? null).toBe(f.expect.problem);

    if (rejected) {
      expect(rejected.note).toContain(f.expect.note);
      // Asked again, then (bounded) the session fails naming the problem: never a loop, never a silent end.
      expect(afterRejected(rejected.problem, 1, rejected.note)).toBe('again');
      const max = rejected.problem === 'refusal' ? MAX_REFUSALS_IN_A_ROW : MAX_REJECTED_IN_A_ROW;
      expect(afterRejected(rejected.problem, max, rejected.note)).toMatchObject({ status: 'failed', kind: 'model_error', reason: expect.stringContaining(rejected.problem) });
      // The model reads the note next (after the task, when the reply left no turn), and never an empty assistant turn.
      const prompt = buildPrompt(stored([started, modelCalled(res), { type: 'ReplyRejected', problem: rejected.problem, inARow: 1, note: rejected.note }]));
      const last = prompt.messages[prompt.messages.length - 1];
      expect(last.role).toBe('user');
      expect(last.content.endsWith(rejected.note)).toBe(true);
      expect(prompt.messages.filter((m) => m.role === 'assistant' && !m.content.trim())).toEqual([]);
    } else if (res.code !== null) {
      const note = cellNote(res.text, res.stopReason);
      expect(note).toContain(f.expect.cellNote);
      const prompt = buildPrompt(stored([
        started, modelCalled(res), { type: 'CellRequested', cellId: 'r1/2', code: res.code },
        { type: 'CellExecuted', requestId: 'r1/2', code: res.code, status: 'ok', outputs: '391\n', durationMs: 3, executionCount: 1 },
      ]));
      expect(prompt.messages[prompt.messages.length - 1]).toEqual({ role: 'tool', content: `391\n${note}` });
    } else {
      expect(f.expect.answer).toBe(true);
      expect(res.text.trim()).not.toBe('');
    }
  });
});

test.each([
  ["I'm sorry, but I can't help with that.", 'refusal'],
  ['I cannot assist with this request.', 'refusal'],
  ['Sorry, I won’t do that!', 'refusal'],
  ["I can't do that: config.yaml does not exist in the workspace.", null],
  ['I am unable to reach the network, so the answer is 391 from the kernel.', null],
])('prose %j is a refusal only when it is nothing else', (text, problem) => {
  expect(checkReply({ text, code: null, stopReason: 'end' })?.problem ?? null).toBe(problem);
});

test('a plain reply with one block gets no note on its cell', () => {
  expect(cellNote('Computing.\n```python\nprint(1)\n```\n', 'end')).toBe('');
});
