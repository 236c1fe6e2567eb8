import { ProviderError } from '../../errors';
import { createGeminiProvider, type GeminiProviderConfig } from '../../activities/model/gemini';
import type { RetryInfo } from '../../activities/model/retry';
import type { ChatMessage, ModelRequest } from '../../activities/model/types';
import { startFakeSseServer, type FakeReply, type FakeSseServer } from '../helpers/fake-sse-server';
import { cutShort, errorFixture, sseFixture } from '../helpers/provider-fixtures';

let server: FakeSseServer;
beforeEach(async () => (server = await startFakeSseServer()));
afterEach(() => server.close());

const text = () => sseFixture('gemini', 'text.sse');
const toolCall = (edit?: (body: string) => string) => sseFixture('gemini', 'tool-call.sse', edit);
const error = (name: string) => errorFixture('gemini', name);

function provider(over: Partial<GeminiProviderConfig> = {}, retries: RetryInfo[] = []) {
  return createGeminiProvider({
    baseUrl: server.url,
    apiKey: 'AIza-test',
    retry: { baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 40 },
    // Long enough for a loaded machine; the stall tests set a short one of their own.
    timeouts: { stallTimeoutMs: 30_000 },
    onRetry: (info) => retries.push(info),
    ...over,
  });
}

function request(over: Partial<ModelRequest> = {}): ModelRequest {
  return { model: 'gemini-2.5-flash', system: 'You are root.', messages: [{ role: 'user', content: 'hi' }], tools: 'python', agent: 'root', callIndex: 0, ...over };
}

describe('Gemini provider', () => {
  test('streamed text is joined from its chunks; usage counts cached input and thinking; priced as gemini-2.5-flash', async () => {
    server.enqueue(text());
    const res = await provider().complete(request());
    expect(res).toMatchObject({
      text: 'The answer is 42, wörld 🎉.',
      code: null,
      // promptTokenCount 1200 (1024 of it cached); candidates 9 + thoughts 50.
      usage: { inputTokens: 1200, outputTokens: 59, cacheReadTokens: 1024 },
      usageReported: true,
      model: 'gemini-2.5-flash',
      provider: 'gemini',
      stopReason: 'end',
      rawStopReason: 'STOP',
      attempts: 1,
    });
    // Cached input at a quarter of the input price.
    expect(res.costUsd).toBeCloseTo((176 * 0.3 + 1024 * 0.3 * 0.25 + 59 * 2.5) / 1e6, 12);
  });

  test('each text delta reaches onTextDelta as it is folded, and the pieces join to the text', async () => {
    server.enqueue(text());
    const pieces: string[] = [];
    const res = await provider().complete(request({ onTextDelta: (t) => pieces.push(t) }));
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(res.text);
  });

  test('the request: URL with alt=sse, key header, systemInstruction, user/model contents, function declaration and responses', async () => {
    server.enqueue(text());
    const history: ChatMessage[] = [
      { role: 'user', content: 'compute' },
      { role: 'assistant', content: 'Running.', code: 'print(2)', toolCallId: 'fc-1' },
      { role: 'tool', content: '2', toolCallId: 'fc-1' },
      { role: 'user', content: 'and now?' },
      { role: 'assistant', content: '```python\nprint(3)\n```', code: 'print(3)' },
      { role: 'tool', content: '' },
    ];
    await provider().complete(request({ messages: history, maxTokens: 256, temperature: 0 }));
    const [sent] = server.requests;
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(sent.headers['x-goog-api-key']).toBe('AIza-test');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({
      systemInstruction: { parts: [{ text: 'You are root.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'compute' }] },
        { role: 'model', parts: [{ text: 'Running.' }, { functionCall: { id: 'fc-1', name: 'python', args: { code: 'print(2)' } }, thoughtSignature: 'skip_thought_signature_validator' }] },
        { role: 'user', parts: [{ functionResponse: { id: 'fc-1', name: 'python', response: { output: '2' } } }, { text: 'and now?' }] },
        { role: 'model', parts: [{ text: '```python\nprint(3)\n```' }] },
        { role: 'user', parts: [{ text: '(no output)' }] },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'python',
              description: expect.stringContaining('IPython'),
              parameters: { type: 'object', properties: { code: expect.objectContaining({ type: 'string' }) }, required: ['code'] },
            },
          ],
        },
      ],
      generationConfig: { maxOutputTokens: 256, temperature: 0 },
    });
  });

  test('a function call without an id gets one made from the agent and call index (the same on a retry), not sent back as Gemini\'s', async () => {
    server.enqueue(toolCall(), toolCall(), toolCall(), toolCall());
    const first = await provider().complete(request());
    const again = await provider().complete(request());
    const nextCall = await provider().complete(request({ callIndex: 1 }));
    const otherAgent = await provider().complete(request({ agent: 'child' }));
    expect(first).toMatchObject({ text: 'Computing it in Python.', code: 'import math\nprint("π ≈", math.pi)', stopReason: 'tool_call', rawStopReason: 'STOP' });
    expect(first.usage).toEqual({ inputTokens: 310, outputTokens: 136 });
    expect(first.toolCallId).toMatch(/^recur_gc_[0-9a-f]{16}$/);
    expect(again.toolCallId).toBe(first.toolCallId);
    expect(new Set([first.toolCallId, nextCall.toolCallId, otherAgent.toolCallId]).size).toBe(3);

    server.enqueue(text());
    const history: ChatMessage[] = [
      { role: 'assistant', content: '', code: first.code!, toolCallId: first.toolCallId },
      { role: 'tool', content: 'π ≈ 3.14159', toolCallId: first.toolCallId },
    ];
    await provider().complete(request({ messages: history }));
    expect(server.requests[4].body.contents).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'python', args: { code: first.code } }, thoughtSignature: 'skip_thought_signature_validator' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'python', response: { output: 'π ≈ 3.14159' } } }] },
    ]);
  });

  test("a function call with Gemini's own id keeps it", async () => {
    server.enqueue(toolCall((body) => body.replace('"functionCall": {"name"', '"functionCall": {"id": "fc-77","name"')));
    expect(await provider().complete(request())).toMatchObject({ toolCallId: 'fc-77', code: expect.stringContaining('math.pi') });
  });

  test('with tools none, history calls go as fenced code and no tools are declared', async () => {
    server.enqueue(text());
    const history: ChatMessage[] = [
      { role: 'assistant', content: '', code: 'x = 1', toolCallId: 'fc-1' },
      { role: 'tool', content: 'done', toolCallId: 'fc-1' },
    ];
    await provider().complete(request({ tools: 'none', system: '', messages: history }));
    const { body } = server.requests[0];
    expect(body.tools).toBeUndefined();
    expect(body.systemInstruction).toBeUndefined();
    expect(body.generationConfig).toBeUndefined();
    expect(body.contents).toEqual([
      { role: 'model', parts: [{ text: '```python\nx = 1\n```' }] },
      { role: 'user', parts: [{ text: 'done' }] },
    ]);
  });

  test('MAX_TOKENS and SAFETY finish reasons map to max_tokens and other', async () => {
    server.enqueue(sseFixture('gemini', 'text.sse', (b) => b.replace('"STOP"', '"MAX_TOKENS"')));
    server.enqueue(sseFixture('gemini', 'text.sse', (b) => b.replace('"STOP"', '"SAFETY"')));
    expect(await provider().complete(request())).toMatchObject({ stopReason: 'max_tokens', rawStopReason: 'MAX_TOKENS' });
    expect(await provider().complete(request())).toMatchObject({ stopReason: 'other', rawStopReason: 'SAFETY' });
  });

  test('a blocked prompt ends the answer with the block reason, not a retry', async () => {
    server.enqueue(sseFixture('gemini', 'prompt-blocked.sse'));
    const res = await provider().complete(request());
    expect(res).toMatchObject({ text: '', code: null, stopReason: 'other', rawStopReason: 'PROHIBITED_CONTENT', attempts: 1 });
  });

  test('a malformed function call is a bad sample: retried', async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(sseFixture('gemini', 'text.sse', (b) => b.replace('"STOP"', '"MALFORMED_FUNCTION_CALL"')), toolCall());
    expect(await provider({}, retries).complete(request())).toMatchObject({ attempts: 2, stopReason: 'tool_call' });
    expect(retries[0].error.message).toBe('gemini: bad function call (MALFORMED_FUNCTION_CALL)');
  });

  test('CRLF-framed events split anywhere, mid-line and mid-character, still parse', async () => {
    server.enqueue({ ...text(), chunkBytes: 3 });
    expect((await provider().complete(request())).text).toBe('The answer is 42, wörld 🎉.');
  });

  test('a 400 INVALID_ARGUMENT fails at once, naming the provider, the status and the reason', async () => {
    server.enqueue(error('error-400.json'), text());
    const err = await provider().complete(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ provider: 'gemini', status: 400, retryable: false });
    expect((err as Error).message).toBe('gemini: HTTP 400: INVALID_ARGUMENT: API key not valid. Please pass a valid API key. (API_KEY_INVALID)');
    expect(server.requests).toHaveLength(1);
  });

  test('a 429 RESOURCE_EXHAUSTED whose RetryInfo is within the cap waits as it says, then succeeds', async () => {
    const retries: RetryInfo[] = [];
    const short = errorFixture('gemini', 'error-429.json') as Extract<FakeReply, { type: 'json' }>;
    const body = JSON.parse(JSON.stringify(short.body).replace('"retryDelay":"37s"', '"retryDelay":"0.03s"'));
    server.enqueue({ ...short, body }, text());
    const res = await provider({}, retries).complete(request());
    expect(res).toMatchObject({ text: 'The answer is 42, wörld 🎉.', attempts: 2 });
    // Jittered backoff would be at most 5.
    expect(retries.map((r) => r.delayMs)).toEqual([30]);
    expect(retries[0].error.message).toContain('RESOURCE_EXHAUSTED: You exceeded your current quota');
  });

  test('500 INTERNAL and 503 UNAVAILABLE are retried', async () => {
    server.enqueue(error('error-500.json'), error('error-503.json'), text());
    const retries: RetryInfo[] = [];
    expect(await provider({}, retries).complete(request())).toMatchObject({ attempts: 3 });
    expect(retries.map((r) => r.error.status)).toEqual([500, 503]);
    expect(retries[1].error.message).toContain('UNAVAILABLE: The model is overloaded');
  });

  test('a stream cut before the finishReason is retried', async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(cutShort(text(), 1), text());
    const res = await provider({}, retries).complete(request());
    expect(res).toMatchObject({ text: 'The answer is 42, wörld 🎉.', attempts: 2 });
    expect(retries[0].error.message).toContain('stream ended before a finishReason');
  });

  test('an error object inside the stream is retried when the server is at fault', async () => {
    const frame = 'data: {"error": {"code": 503,"message": "The model is overloaded.","status": "UNAVAILABLE"}}\r\n\r\n';
    server.enqueue({ type: 'sse', frames: [frame] }, text());
    expect(await provider().complete(request())).toMatchObject({ attempts: 2 });
  });
});
