import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BlobStore } from '../../activities/blob-store';
import { modelCalledFields } from '../../activities/call-model';
import { createAnthropicProvider } from '../../activities/model/anthropic';
import { createOpenAIProvider } from '../../activities/model/openai';
import { costUsd } from '../../activities/model/pricing';
import type { ModelRequest, ModelResponse } from '../../activities/model/types';
import { buildPrompt } from '../../activities/prompt/build-prompt';
import { BASE_SYSTEM_PROMPT } from '../../activities/prompt/system-prompt';
import { encodeEventBatch, ZERO_HASH, type RecurEventInput } from '../../schemas';
import { anthropicText, startFakeAnthropicServer } from '../helpers/fake-anthropic-server';
import { openaiText } from '../helpers/fake-openai-server';
import type { FakeSseServer } from '../helpers/fake-sse-server';

const CACHE_USAGE_SSE = readFileSync(join(__dirname, '..', 'fixtures', 'providers', 'anthropic', 'messages-cache-usage.sse'), 'utf8');

let server: FakeSseServer;
beforeEach(async () => (server = await startFakeAnthropicServer()));
afterEach(() => server.close());

const provider = () => createAnthropicProvider({ baseUrl: server.url, apiKey: 'sk-ant-test', retry: { maxAttempts: 1 } });

function request(over: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'claude-sonnet-4-5', system: 'BASE. HARNESS. context and goal', cacheBreaks: [6, 15],
    messages: [{ role: 'user', content: 'compute' }, { role: 'assistant', content: 'Running.', code: 'print(2)', toolCallId: 'toolu_1' }, { role: 'tool', content: '2', toolCallId: 'toolu_1' }],
    tools: 'python', agent: 'root', callIndex: 3, ...over,
  };
}

describe('Anthropic prompt caching', () => {
  test('the stable system prefixes and the end of the conversation carry ephemeral cache_control breakpoints', async () => {
    server.enqueue(anthropicText('ok'));
    await provider().complete(request());
    const { body } = server.requests[0];
    expect(body.system).toEqual([
      { type: 'text', text: 'BASE. ', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'HARNESS. ', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'context and goal' },
    ]);
    expect(body.messages.at(-1)).toEqual({
      role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '2', cache_control: { type: 'ephemeral' } }],
    });
    expect(JSON.stringify(body).match(/cache_control/g)).toHaveLength(3);
  });

  test('an empty harness adds no second breakpoint; a call without cache breaks (a compaction summary) caches nothing', async () => {
    server.enqueue(anthropicText('ok'), anthropicText('ok'));
    await provider().complete(request({ system: 'BASE. rest', cacheBreaks: [6, 6] }));
    await provider().complete(request({ system: 'Summarise.', cacheBreaks: undefined }));
    expect(server.requests[0].body.system).toEqual([
      { type: 'text', text: 'BASE. ', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'rest' },
    ]);
    expect(server.requests[1].body.system).toBe('Summarise.');
    expect(JSON.stringify(server.requests[1].body)).not.toContain('cache_control');
  });

  test('cache reads and writes from a recorded stream are counted in the input, kept apart, and priced at 0.1x and 1.25x', async () => {
    server.enqueue({ type: 'sse', frames: [CACHE_USAGE_SSE] });
    const res = await provider().complete(request());
    expect(res.text).toBe('The cached prefix was read.');
    expect(res.usage).toEqual({ inputTokens: 12_050, outputTokens: 200, cacheReadTokens: 10_000, cacheWriteTokens: 2_000 });
    // $3/MTok in: 50 plain at 3, 10,000 read at 0.3, 2,000 written at 3.75; 200 out at 15.
    expect(res.costUsd).toBeCloseTo((50 * 3 + 10_000 * 0.3 + 2_000 * 3.75 + 200 * 15) / 1e6, 12);
    expect(res.costUsd).toBeCloseTo(0.01365, 12);
  });
});

describe('OpenAI cached input', () => {
  test('prompt_tokens_details.cached_tokens are cache reads within prompt_tokens, priced at the model\'s discount', async () => {
    server.enqueue(openaiText('ok', { model: 'gpt-4o-2024-08-06', usage: { prompt: 2_000_000, completion: 0, cached: 1_500_000 } }));
    const res = await createOpenAIProvider({ name: 'openai', baseUrl: server.url, apiKey: 'k' }).complete(request({ model: 'gpt-4o' }));
    expect(res.usage).toEqual({ inputTokens: 2_000_000, outputTokens: 0, cacheReadTokens: 1_500_000 });
    // gpt-4o: $2.50 plain, cached at half.
    expect(res.costUsd).toBeCloseTo(0.5 * 2.5 + 1.5 * 1.25, 12);
  });
});

describe('cached-token prices', () => {
  test('each provider prices cache reads by its own multiplier; a model without one prices them as plain input', () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 800_000 };
    expect(costUsd('openai', 'gpt-4o', usage)).toBeCloseTo(0.2 * 2.5 + 0.8 * 1.25, 12);
    expect(costUsd('openai', 'gpt-5', usage)).toBeCloseTo(0.2 * 1.25 + 0.8 * 0.125, 12);
    expect(costUsd('groq', 'llama-3.1-8b-instant', usage)).toBeCloseTo(0.05, 12);
    expect(costUsd('anthropic', 'claude-haiku-4-5', { inputTokens: 1_000_000, outputTokens: 0, cacheWriteTokens: 1_000_000 })).toBeCloseTo(1.25, 12);
  });

  test('a caller table can set cache multipliers for its own model', () => {
    const table = { 'vllm/mine': { inputPerMTok: 1, outputPerMTok: 1, cacheReadMultiplier: 0.5, cacheWriteMultiplier: 2 } };
    expect(costUsd('vllm', 'mine', { inputTokens: 3_000_000, outputTokens: 0, cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000 }, table)).toBeCloseTo(3.5, 12);
  });
});

describe('the prompt is assembled stable part first', () => {
  const events = encodeEventBatch({
    sessionId: 'r', rootId: 'r', parentId: null, fromSeq: 0, prevHash: ZERO_HASH,
    events: ([
      { type: 'SessionStarted', task: 't', name: 'root', model: 'scripted:x', parentId: null, depth: 0, maxDepth: 2, maxTurns: 10, cellTimeoutSeconds: 60 },
      { type: 'GoalChanged', change: 'set', status: 'active', objective: 'green tests', openEnded: false, tokensUsed: 0, secondsUsed: 0, costUsd: 0 },
    ] as RecurEventInput[]).map((event, i) => ({ ts: 1_700_000_000_000 + i, event })),
  }).records;

  test('base prompt, harness, then the volatile goal; the cache breaks end the base prompt and the harness', () => {
    const harness = '\n\n## Continual Harness\n\n### Prompt notes\n- be brief';
    const { system, cacheBreaks } = buildPrompt(events, null, [], harness);
    expect(system.startsWith(BASE_SYSTEM_PROMPT + harness + '\n\nYour goal (active')).toBe(true);
    expect(cacheBreaks).toEqual([BASE_SYSTEM_PROMPT.length, BASE_SYSTEM_PROMPT.length + harness.length]);
    expect(system.slice(cacheBreaks[1])).toMatch(/^\n\nYour goal .*<goal>green tests<\/goal>$/s);
  });
});

describe('ModelCalled records cache use', () => {
  const res = (usage: ModelResponse['usage']): ModelResponse => ({
    text: 'ok', code: null, usage, usageReported: true, costUsd: 0, latencyMs: 1, attempts: 1, model: 'm', provider: 'anthropic', stopReason: 'end', rawStopReason: 'end_turn',
  });
  const blobs = {} as BlobStore;

  test('cache reads and writes are logged beside tokensIn; null when the provider reported none', async () => {
    expect(await modelCalledFields(blobs, res({ inputTokens: 12_050, outputTokens: 200, cacheReadTokens: 10_000, cacheWriteTokens: 2_000 }))).toMatchObject({
      tokensIn: 12_050, cacheReadTokens: 10_000, cacheWriteTokens: 2_000,
    });
    expect(await modelCalledFields(blobs, res({ inputTokens: 5, outputTokens: 1 }))).toMatchObject({ cacheReadTokens: null, cacheWriteTokens: null });
  });
});
