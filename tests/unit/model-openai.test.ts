import { ProviderError } from '../../errors';
import { createOpenAIProvider, type OpenAIProviderConfig } from '../../activities/model/openai';
import type { RetryInfo } from '../../activities/model/retry';
import type { ChatMessage, ModelRequest } from '../../activities/model/types';
import { openaiError, openaiText, openaiToolCall, startFakeOpenAIServer } from '../helpers/fake-openai-server';
import { stalled, type FakeSseServer } from '../helpers/fake-sse-server';

let server: FakeSseServer;
beforeEach(async () => (server = await startFakeOpenAIServer()));
afterEach(() => server.close());

function provider(over: Partial<OpenAIProviderConfig> = {}, retries: RetryInfo[] = []) {
  return createOpenAIProvider({
    name: 'openai',
    baseUrl: `${server.url}/v1`,
    apiKey: 'sk-test',
    maxTokensField: 'max_completion_tokens',
    retry: { baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 5_000 },
    // Long enough for a loaded machine; the stall tests set a short one of their own.
    timeouts: { stallTimeoutMs: 30_000 },
    onRetry: (info) => retries.push(info),
    ...over,
  });
}

function request(over: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'gpt-4o-mini',
    system: 'You are root.',
    messages: [{ role: 'user', content: 'hi' }],
    tools: 'python',
    agent: 'root',
    callIndex: 0,
    ...over,
  };
}

describe('OpenAI chat completions provider', () => {
  test('a streamed text answer is joined from its deltas, with usage and cost', async () => {
    server.enqueue(openaiText('Hello, wörld 🎉 done', { pieces: 5, usage: { prompt: 1_000_000, completion: 500_000 } }));
    const res = await provider().complete(request());
    expect(res).toMatchObject({
      text: 'Hello, wörld 🎉 done',
      code: null,
      usage: { inputTokens: 1_000_000, outputTokens: 500_000 },
      usageReported: true,
      model: 'gpt-4o-mini-2024-07-18',
      provider: 'openai',
      stopReason: 'end',
      rawStopReason: 'stop',
      attempts: 1,
    });
    expect(res.toolCallId).toBeUndefined();
    // gpt-4o-mini list price: $0.15 in, $0.60 out per million.
    expect(res.costUsd).toBeCloseTo(0.15 + 0.3, 10);
  });

  test('each text delta reaches onTextDelta as it is folded, and the pieces join to the text', async () => {
    server.enqueue(openaiText('Hello, wörld 🎉 done', { pieces: 5 }));
    const pieces: string[] = [];
    const res = await provider().complete(request({ onTextDelta: (t) => pieces.push(t) }));
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(res.text);
  });

  test('a server that sends no usage chunk gets its usage estimated from the text, and says it is estimated', async () => {
    server.enqueue(openaiText('x'.repeat(40), { usage: null }));
    const req = request();
    const res = await provider().complete(req);
    const promptChars = req.system.length + req.messages.reduce((n, m) => n + m.content.length + (m.code?.length ?? 0), 0);
    expect(res).toMatchObject({ usageReported: false, usage: { inputTokens: Math.ceil(promptChars / 4), outputTokens: 10 } });
    expect(res.costUsd).toBeGreaterThan(0);
  });

  test('bytes split mid-line and mid-character still parse', async () => {
    server.enqueue({ ...openaiText('ünïcödé ✓ 🎉'), chunkBytes: 3 });
    expect((await provider().complete(request())).text).toBe('ünïcödé ✓ 🎉');
  });

  test('a native python call whose arguments arrive in pieces yields its code and id', async () => {
    const code = 'import math\nprint("π ≈", math.pi)  # {"not": "json"}';
    server.enqueue(openaiToolCall(code, { id: 'call_XYZ', text: 'Computing.', pieces: 6 }));
    const res = await provider().complete(request());
    expect(res).toMatchObject({ text: 'Computing.', code, toolCallId: 'call_XYZ', stopReason: 'tool_call', rawStopReason: 'tool_calls' });
  });

  test('without a native call, fenced python blocks in the text are the code', async () => {
    server.enqueue(openaiText('First:\n```python\nx = 1\n```\nthen\n```py\nprint(x)\n```\n```bash\nls\n```'));
    const res = await provider().complete(request({ tools: 'none' }));
    expect(res.code).toBe('x = 1\n\nprint(x)');
    expect(res.toolCallId).toBeUndefined();
  });

  test('the request carries auth, the python tool, the system prompt and a round-tripped tool history', async () => {
    server.enqueue(openaiText('ok'));
    const history: ChatMessage[] = [
      { role: 'user', content: 'compute' },
      { role: 'assistant', content: 'Running.', code: 'print(2)', toolCallId: 'call_1' },
      { role: 'tool', content: '2', toolCallId: 'call_1' },
      { role: 'assistant', content: '```python\nprint(3)\n```', code: 'print(3)' },
      { role: 'tool', content: '3' },
    ];
    await provider().complete(request({ messages: history, maxTokens: 256, temperature: 0 }));
    const [sent] = server.requests;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.body).toEqual({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 256,
      temperature: 0,
      tools: [
        {
          type: 'function',
          function: {
            name: 'python',
            description: expect.stringContaining('IPython'),
            parameters: { type: 'object', properties: { code: expect.objectContaining({ type: 'string' }) }, required: ['code'] },
          },
        },
      ],
      messages: [
        { role: 'system', content: 'You are root.' },
        { role: 'user', content: 'compute' },
        {
          role: 'assistant',
          content: 'Running.',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'python', arguments: '{"code":"print(2)"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '2' },
        { role: 'assistant', content: '```python\nprint(3)\n```' },
        { role: 'user', content: '3' },
      ],
    });
  });

  test('with tools none, native calls in history are sent as fenced code and no tools are offered', async () => {
    server.enqueue(openaiText('ok'));
    const history: ChatMessage[] = [
      { role: 'assistant', content: '', code: 'x = 1', toolCallId: 'call_1' },
      { role: 'tool', content: 'done', toolCallId: 'call_1' },
    ];
    await provider({ apiKey: undefined, maxTokensField: undefined }).complete(request({ tools: 'none', messages: history, maxTokens: 9 }));
    const { body, headers } = server.requests[0];
    expect(headers.authorization).toBeUndefined();
    expect(body.tools).toBeUndefined();
    expect(body.max_tokens).toBe(9);
    expect(body.messages.slice(1)).toEqual([
      { role: 'assistant', content: '```python\nx = 1\n```' },
      { role: 'user', content: 'done' },
    ]);
  });

  test('a 429 is retried after the retry-after-ms the server asked for', async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(openaiError(429, 'Rate limit reached', { 'retry-after-ms': '40' }), openaiText('after wait'));
    const res = await provider({}, retries).complete(request());
    expect(res).toMatchObject({ text: 'after wait', attempts: 2 });
    expect(retries).toHaveLength(1);
    expect(retries[0].delayMs).toBe(40);
    expect(retries[0].error).toMatchObject({ status: 429, retryable: true });
    expect(server.requests).toHaveLength(2);
  });

  test('a 500 is retried with backoff and then succeeds', async () => {
    server.enqueue(openaiError(500, 'The server had an error'), openaiText('fine'));
    const res = await provider().complete(request());
    expect(res).toMatchObject({ text: 'fine', attempts: 2 });
  });

  test('a 400 fails at once, not retryable, with the provider message', async () => {
    server.enqueue(openaiError(400, "Invalid parameter: 'messages' must not be empty"), openaiText('never'));
    const err = await provider().complete(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ status: 400, retryable: false, provider: 'openai' });
    expect((err as Error).message).toContain("'messages' must not be empty");
    expect(server.requests).toHaveLength(1);
  });

  test('retryable failures stop after maxAttempts and the last error is thrown', async () => {
    server.enqueue(openaiError(503, 'busy'), openaiError(502, 'bad gateway'), openaiText('too late'));
    const err = await provider({ retry: { maxAttempts: 2, baseDelayMs: 1 } }).complete(request()).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 502, retryable: true });
    expect(server.requests).toHaveLength(2);
  });

  test('a stream that stalls mid-way is aborted and retried', async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(stalled(openaiText('partial answer', { pieces: 4 }), 2), openaiText('whole answer'));
    const res = await provider({ timeouts: { stallTimeoutMs: 300 } }, retries).complete(request());
    expect(res).toMatchObject({ text: 'whole answer', attempts: 2 });
    expect(retries[0].error.message).toContain('stream stalled');
  });

  test('a stream that trickles keep-alives forever hits the request timeout and is retried', async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(stalled(openaiText('slow'), 1, 20), openaiText('quick'));
    const res = await provider({ timeouts: { stallTimeoutMs: 200, requestTimeoutMs: 400 } }, retries).complete(request());
    expect(res.text).toBe('quick');
    expect(retries[0].error.message).toContain('timed out after 400 ms');
  });

  test('a stream that ends before finishing is retried', async () => {
    const cut = openaiText('cut short', { pieces: 2 });
    server.enqueue({ ...cut, frames: cut.frames.slice(0, 2) }, openaiText('complete'));
    expect((await provider().complete(request())).text).toBe('complete');
  });

  test('an error chunk after a 200 is retried', async () => {
    server.enqueue(
      { type: 'sse', frames: ['data: {"error":{"message":"The server had an error","type":"server_error"}}\n\n'] },
      openaiText('recovered'),
    );
    expect((await provider().complete(request())).text).toBe('recovered');
  });

  test('tool arguments that are not JSON come back as the model sent them, not retried: no code, the parse error for the model to read', async () => {
    const bad = openaiToolCall('x', { pieces: 1 });
    const frames = bad.frames.map((f) => f.replace('{\\"code\\":', '{\\"code\\" '));
    server.enqueue({ ...bad, frames }, openaiToolCall('print(1)'));
    const res = await provider().complete(request());
    expect(res).toMatchObject({ code: null, attempts: 1, stopReason: 'tool_call', toolCallErrors: [expect.stringContaining('not JSON')] });
    expect(res.toolCallId).toBeUndefined();
  });

  test('a caller abort during a stall ends the call without retrying', async () => {
    server.enqueue(stalled(openaiText('never ends'), 1), openaiText('unused'));
    const controller = new AbortController();
    const pending = provider({ timeouts: { stallTimeoutMs: 60_000 } }).complete(request({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ retryable: false, message: expect.stringContaining('aborted by caller') });
    expect(server.requests).toHaveLength(1);
  });

  test('an unreachable server is a retryable network error', async () => {
    const url = server.url;
    await server.close();
    const dead = createOpenAIProvider({ name: 'vllm', baseUrl: url, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    await expect(dead.complete(request())).rejects.toMatchObject({
      provider: 'vllm',
      retryable: true,
      message: expect.stringContaining('network error'),
    });
    server = await startFakeOpenAIServer();
  });
});
