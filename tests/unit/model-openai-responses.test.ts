import { ProviderError } from '../../errors';
import { createOpenAIResponsesProvider, type OpenAIResponsesProviderConfig } from '../../activities/model/openai-responses';
import type { RetryInfo } from '../../activities/model/retry';
import type { ChatMessage, ModelRequest } from '../../activities/model/types';
import { startFakeSseServer, type FakeSseServer } from '../helpers/fake-sse-server';
import { cutShort, errorFixture, sseFixture } from '../helpers/provider-fixtures';

let server: FakeSseServer;
beforeEach(async () => (server = await startFakeSseServer()));
afterEach(() => server.close());

const text = () => sseFixture('openai-responses', 'text.sse');
const error = (name: string) => errorFixture('openai-responses', name);

function provider(over: Partial<OpenAIResponsesProviderConfig> = {}, retries: RetryInfo[] = []) {
  return createOpenAIResponsesProvider({
    name: 'openai-responses',
    baseUrl: `${server.url}/v1`,
    apiKey: 'sk-test',
    retry: { baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 5_000 },
    // Long enough for a loaded machine; the stall tests set a short one of their own.
    timeouts: { stallTimeoutMs: 30_000 },
    onRetry: (info) => retries.push(info),
    ...over,
  });
}

function request(over: Partial<ModelRequest> = {}): ModelRequest {
  return { model: 'gpt-4.1', system: 'You are root.', messages: [{ role: 'user', content: 'hi' }], tools: 'python', agent: 'root', callIndex: 0, ...over };
}

describe('OpenAI Responses provider', () => {
  test('streamed output_text deltas, usage from response.completed, priced at the openai list price', async () => {
    server.enqueue(text());
    const res = await provider().complete(request());
    expect(res).toMatchObject({
      text: 'Hello, wörld 🎉 done',
      code: null,
      usage: { inputTokens: 1_000_000, outputTokens: 500_000 },
      usageReported: true,
      model: 'gpt-4.1-2025-04-14',
      provider: 'openai-responses',
      stopReason: 'end',
      rawStopReason: 'completed',
      attempts: 1,
    });
    // gpt-4.1: $2 in, $8 out per million.
    expect(res.costUsd).toBeCloseTo(2 + 4, 10);
  });

  test('each text delta reaches onTextDelta as it is folded, and the pieces join to the text', async () => {
    server.enqueue(text());
    const pieces: string[] = [];
    const res = await provider().complete(request({ onTextDelta: (t) => pieces.push(t) }));
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(res.text);
  });

  test('the request: /responses, bearer key, instructions, input items with function_call and its output, the python tool', async () => {
    server.enqueue(text());
    const history: ChatMessage[] = [
      { role: 'user', content: 'compute' },
      { role: 'assistant', content: 'Running.', code: 'print(2)', toolCallId: 'call_1' },
      { role: 'tool', content: '2', toolCallId: 'call_1' },
      { role: 'assistant', content: '', code: 'print(3)', toolCallId: 'call_2' },
      { role: 'tool', content: '3', toolCallId: 'call_2' },
      { role: 'assistant', content: '```python\nprint(4)\n```', code: 'print(4)' },
      { role: 'tool', content: '4' },
    ];
    await provider().complete(request({ messages: history, maxTokens: 300, temperature: 0.2 }));
    const [sent] = server.requests;
    expect(sent.path).toBe('/v1/responses');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body).toEqual({
      model: 'gpt-4.1',
      instructions: 'You are root.',
      stream: true,
      store: false,
      max_output_tokens: 300,
      temperature: 0.2,
      tools: [
        {
          type: 'function',
          name: 'python',
          description: expect.stringContaining('IPython'),
          parameters: { type: 'object', properties: { code: expect.objectContaining({ type: 'string' }) }, required: ['code'] },
          strict: false,
        },
      ],
      input: [
        { role: 'user', content: 'compute' },
        { role: 'assistant', content: 'Running.' },
        { type: 'function_call', call_id: 'call_1', name: 'python', arguments: '{"code":"print(2)"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '2' },
        { type: 'function_call', call_id: 'call_2', name: 'python', arguments: '{"code":"print(3)"}' },
        { type: 'function_call_output', call_id: 'call_2', output: '3' },
        { role: 'assistant', content: '```python\nprint(4)\n```' },
        { role: 'user', content: '4' },
      ],
    });
  });

  test('a function call after a reasoning item: code from its streamed arguments, its call_id, reasoning and cached tokens counted', async () => {
    server.enqueue(sseFixture('openai-responses', 'tool-call.sse'));
    const res = await provider().complete(request({ model: 'gpt-5-mini' }));
    expect(res).toMatchObject({
      text: '',
      code: 'import math\nprint("π ≈", math.pi)',
      toolCallId: 'call_Qh8dVb0sSx3bK4mZpL7wT2nY',
      stopReason: 'tool_call',
      usage: { inputTokens: 2048, outputTokens: 290, cacheReadTokens: 1536 },
      model: 'gpt-5-mini-2025-08-07',
    });
  });

  test('the whole arguments in function_call_arguments.done win over the deltas', async () => {
    // A lost delta: the deltas alone are not JSON, the .done event's arguments are.
    server.enqueue(sseFixture('openai-responses', 'tool-call.sse', (b) => b.replace(/"delta":"(?:[^"\\]|\\.)*"/, '"delta":""')));
    expect(await provider().complete(request())).toMatchObject({ code: 'import math\nprint("π ≈", math.pi)', attempts: 1 });
  });

  test('with tools none, history calls go as fenced code and no tools are offered', async () => {
    server.enqueue(text());
    const history: ChatMessage[] = [
      { role: 'assistant', content: '', code: 'x = 1', toolCallId: 'call_1' },
      { role: 'tool', content: 'done', toolCallId: 'call_1' },
    ];
    await provider().complete(request({ tools: 'none', system: '', messages: history }));
    const { body } = server.requests[0];
    expect(body.tools).toBeUndefined();
    expect(body.instructions).toBeUndefined();
    expect(body.input).toEqual([
      { role: 'assistant', content: '```python\nx = 1\n```' },
      { role: 'user', content: 'done' },
    ]);
  });

  test('response.incomplete for max_output_tokens is a max_tokens stop, with the partial text', async () => {
    server.enqueue(sseFixture('openai-responses', 'incomplete.sse'));
    const res = await provider().complete(request({ maxTokens: 16 }));
    expect(res).toMatchObject({ text: 'The first part of a long', stopReason: 'max_tokens', rawStopReason: 'max_output_tokens', usage: { inputTokens: 52, outputTokens: 16 } });
  });

  test('response.failed with server_error is retried', async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(sseFixture('openai-responses', 'failed.sse'), text());
    expect(await provider({}, retries).complete(request())).toMatchObject({ attempts: 2, text: 'Hello, wörld 🎉 done' });
    expect(retries[0].error.message).toContain('stream error: server_error: An error occurred while processing your request');
  });

  test('an error event naming a bad request is not retried', async () => {
    const frame = 'event: error\ndata: {"type":"error","sequence_number":2,"code":"invalid_prompt","message":"Invalid prompt.","param":null}\n\n';
    server.enqueue({ type: 'sse', frames: [frame] }, text());
    await expect(provider().complete(request())).rejects.toMatchObject({ retryable: false, message: 'openai-responses: stream error: invalid_prompt: Invalid prompt.' });
    expect(server.requests).toHaveLength(1);
  });

  test('a 400 fails at once with the type and message', async () => {
    server.enqueue(error('error-400.json'), text());
    const err = await provider().complete(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ provider: 'openai-responses', status: 400, retryable: false });
    expect((err as Error).message).toBe("openai-responses: HTTP 400: invalid_request_error: Unsupported parameter: 'temperature' is not supported with this model.");
  });

  test('a 429 is retried after the retry-after-ms it asks for, then succeeds', async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(error('error-429.json'), text());
    expect(await provider({}, retries).complete(request())).toMatchObject({ attempts: 2 });
    expect(retries.map((r) => r.delayMs)).toEqual([30]);
    expect(retries[0].error).toMatchObject({ status: 429, retryable: true });
  });

  test('a stream cut before response.completed is retried', async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(cutShort(text(), 1), text());
    expect(await provider({}, retries).complete(request())).toMatchObject({ attempts: 2, text: 'Hello, wörld 🎉 done' });
    expect(retries[0].error.message).toContain('stream ended before response.completed');
  });
});
