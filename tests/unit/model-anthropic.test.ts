import { ProviderError } from '../../errors';
import { createAnthropicProvider, toAnthropicTurns, type AnthropicProviderConfig } from '../../activities/model/anthropic';
import type { RetryInfo } from '../../activities/model/retry';
import type { ChatMessage, ModelRequest } from '../../activities/model/types';
import {
  anthropicError,
  anthropicStreamError,
  anthropicText,
  anthropicToolUse,
  startFakeAnthropicServer,
} from '../helpers/fake-anthropic-server';
import { stalled, type FakeSseServer } from '../helpers/fake-sse-server';

let server: FakeSseServer;
beforeEach(async () => (server = await startFakeAnthropicServer()));
afterEach(() => server.close());

function provider(over: Partial<AnthropicProviderConfig> = {}, retries: RetryInfo[] = []) {
  return createAnthropicProvider({
    baseUrl: server.url,
    apiKey: 'sk-ant-test',
    retry: { baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 30 },
    // Long enough for a loaded machine; the stall tests set a short one of their own.
    timeouts: { stallTimeoutMs: 30_000 },
    onRetry: (info) => retries.push(info),
    ...over,
  });
}

function request(over: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'claude-sonnet-4-5',
    system: 'You are root.',
    messages: [{ role: 'user', content: 'hi' }],
    tools: 'python',
    agent: 'root',
    callIndex: 0,
    ...over,
  };
}

describe('Anthropic messages provider', () => {
  test('a streamed text answer is joined from its text_delta events, with usage and cost', async () => {
    server.enqueue(anthropicText('Hello from Claude ✓', { pieces: 4, usage: { input: 2_000_000, output: 100_000 } }));
    const res = await provider().complete(request());
    expect(res).toMatchObject({
      text: 'Hello from Claude ✓',
      code: null,
      usage: { inputTokens: 2_000_000, outputTokens: 100_000 },
      usageReported: true,
      model: 'claude-sonnet-4-5-20250929',
      provider: 'anthropic',
      stopReason: 'end',
      rawStopReason: 'end_turn',
      attempts: 1,
    });
    // claude-sonnet-4-5 list price: $3 in, $15 out per million.
    expect(res.costUsd).toBeCloseTo(6 + 1.5, 10);
  });

  test('each text_delta reaches onTextDelta, tool input JSON does not', async () => {
    server.enqueue(anthropicToolUse('print(1)', { text: 'Running it.' }));
    const pieces: string[] = [];
    const res = await provider().complete(request({ onTextDelta: (t) => pieces.push(t) }));
    expect(res.code).toBe('print(1)');
    expect(pieces.join('')).toBe('Running it.');
  });

  test('a tool_use whose input arrives in several input_json_delta pieces yields its code and id', async () => {
    const code = 'rows = [{"a": 1}]\nprint(len(rows))';
    server.enqueue({ ...anthropicToolUse(code, { id: 'toolu_42', text: 'Let me check.', pieces: 5 }), chunkBytes: 7 });
    const res = await provider().complete(request());
    expect(res).toMatchObject({ text: 'Let me check.', code, toolCallId: 'toolu_42', stopReason: 'tool_call', rawStopReason: 'tool_use' });
  });

  test('without a tool_use, fenced python blocks in the text are the code', async () => {
    server.enqueue(anthropicText('Plan:\n```python\nimport os\nprint(os.getcwd())\n```\nDone.'));
    const res = await provider().complete(request({ tools: 'none' }));
    expect(res.code).toBe('import os\nprint(os.getcwd())');
    expect(res.toolCallId).toBeUndefined();
  });

  test('the request carries the key, version, tool and tool results as tool_result blocks in a user turn', async () => {
    server.enqueue(anthropicText('ok'));
    const history: ChatMessage[] = [
      { role: 'user', content: 'compute' },
      { role: 'assistant', content: 'Running.', code: 'print(2)', toolCallId: 'toolu_1' },
      { role: 'tool', content: '2', toolCallId: 'toolu_1' },
      { role: 'user', content: '[message from child-a] hello' },
      { role: 'assistant', content: '```python\nprint(3)\n```', code: 'print(3)' },
      { role: 'tool', content: '3' },
    ];
    await provider().complete(request({ messages: history, temperature: 0.5 }));
    const [sent] = server.requests;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('sk-ant-test');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 8192,
      system: 'You are root.',
      stream: true,
      temperature: 0.5,
      tools: [
        {
          name: 'python',
          description: expect.stringContaining('IPython'),
          input_schema: { type: 'object', properties: { code: expect.objectContaining({ type: 'string' }) }, required: ['code'] },
        },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'compute' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Running.' },
            { type: 'tool_use', id: 'toolu_1', name: 'python', input: { code: 'print(2)' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '2' },
            { type: 'text', text: '[message from child-a] hello' },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: '```python\nprint(3)\n```' }] },
        { role: 'user', content: [{ type: 'text', text: '3' }] },
      ],
    });
  });

  test('with tools none, tool_use history is sent as fenced text (an empty result as a placeholder) and no tools are offered', async () => {
    server.enqueue(anthropicText('ok'));
    const history: ChatMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', code: 'x = 1', toolCallId: 'toolu_1' },
      { role: 'tool', content: '', toolCallId: 'toolu_1' },
    ];
    await provider().complete(request({ tools: 'none', messages: history, maxTokens: 100, system: '' }));
    const { body } = server.requests[0];
    expect(body.tools).toBeUndefined();
    expect(body.system).toBeUndefined();
    expect(body.max_tokens).toBe(100);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'text', text: '```python\nx = 1\n```' }] },
      { role: 'user', content: [{ type: 'text', text: '(no output)' }] },
    ]);
  });

  test('a 429 whose retry-after is within the cap is slept through in the call and retried', async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(anthropicError(429, 'rate_limit_error', 'Number of request tokens has exceeded your rate limit', { 'retry-after': '0.02' }), anthropicText('after wait'));
    const res = await provider({}, retries).complete(request());
    expect(res).toMatchObject({ text: 'after wait', attempts: 2 });
    expect(retries.map((r) => r.delayMs)).toEqual([20]);
    expect(retries[0].error).toMatchObject({ status: 429, retryable: true });
  });

  test('a 529 overloaded and then a 500 are retried', async () => {
    server.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'), anthropicError(500, 'api_error', 'Internal server error'), anthropicText('fine'));
    expect(await provider().complete(request())).toMatchObject({ text: 'fine', attempts: 3 });
  });

  test('a 400 fails at once, not retryable, with the API error type and message', async () => {
    server.enqueue(anthropicError(400, 'invalid_request_error', 'messages: roles must alternate'), anthropicText('never'));
    const err = await provider().complete(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ status: 400, retryable: false, provider: 'anthropic' });
    expect((err as Error).message).toContain('invalid_request_error: messages: roles must alternate');
    expect(server.requests).toHaveLength(1);
  });

  test('an overloaded_error event mid-stream is retried', async () => {
    server.enqueue(anthropicStreamError('overloaded_error', 'Overloaded'), anthropicText('recovered'));
    expect(await provider().complete(request())).toMatchObject({ text: 'recovered', attempts: 2 });
  });

  test('an invalid_request_error event mid-stream is not retried', async () => {
    server.enqueue(anthropicStreamError('invalid_request_error', 'bad'), anthropicText('never'));
    await expect(provider().complete(request())).rejects.toMatchObject({ retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  test('a stream that stalls mid-way is aborted and retried', async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(stalled(anthropicToolUse('print(1)'), 4), anthropicToolUse('print(2)'));
    const res = await provider({ timeouts: { stallTimeoutMs: 300 } }, retries).complete(request());
    expect(res).toMatchObject({ code: 'print(2)', attempts: 2 });
    expect(retries[0].error.message).toContain('stream stalled: no data for 300 ms');
  });

  test('a stream cut before message_stop is retried', async () => {
    const cut = anthropicText('cut');
    server.enqueue({ ...cut, frames: cut.frames.slice(0, 4) }, anthropicText('complete'));
    expect((await provider().complete(request())).text).toBe('complete');
  });

  test('a user message that arrives before a tool result still leaves the tool_result first in the merged turn', () => {
    const turns = toAnthropicTurns([
      { role: 'assistant', content: '', code: 'sleep(5)', toolCallId: 'toolu_9' },
      { role: 'user', content: 'are you done?' },
      { role: 'tool', content: 'slept', toolCallId: 'toolu_9' },
    ]);
    expect(turns).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 'python', input: { code: 'sleep(5)' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_9', content: 'slept' },
          { type: 'text', text: 'are you done?' },
        ],
      },
    ]);
  });
});
