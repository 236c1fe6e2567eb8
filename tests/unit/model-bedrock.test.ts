import { ProviderError } from '../../errors';
import { bedrockSettings, createBedrockProvider, type BedrockProviderConfig } from '../../activities/model/bedrock';
import { createModel } from '../../activities/model/registry';
import type { RetryInfo } from '../../activities/model/retry';
import type { ChatMessage, ModelRequest } from '../../activities/model/types';
import {
  bedrockFixture, startFakeBedrockServer, TEST_API_KEY, TEST_CREDENTIALS, TEST_REGION, type FakeBedrockServer,
} from '../helpers/fake-bedrock-server';

let server: FakeBedrockServer;
beforeEach(async () => (server = await startFakeBedrockServer()));
afterEach(() => server.close());

const SONNET = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

function provider(over: Partial<BedrockProviderConfig> = {}, retries: RetryInfo[] = []) {
  return createBedrockProvider({
    region: TEST_REGION,
    baseUrl: server.url,
    auth: { kind: 'sigv4', credentials: TEST_CREDENTIALS },
    retry: { baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 30 },
    // Long enough for a loaded machine; the stall tests set a short one of their own.
    timeouts: { stallTimeoutMs: 30_000 },
    onRetry: (info) => retries.push(info),
    ...over,
  });
}

function request(over: Partial<ModelRequest> = {}): ModelRequest {
  return { model: SONNET, system: 'You are root.', messages: [{ role: 'user', content: 'hi' }], tools: 'python', agent: 'root', callIndex: 0, ...over };
}

describe('Amazon Bedrock ConverseStream provider', () => {
  test('a text answer is joined from contentBlockDelta frames split across reads, with cache usage and its exact cost', async () => {
    server.enqueue({ type: 'events', events: bedrockFixture('converse-stream-text'), chunkBytes: 13 });
    const res = await provider().complete(request());
    expect(res).toMatchObject({
      text: 'Hello from Bedrock ✓',
      code: null,
      // Bedrock's inputTokens leaves the cache out; the neutral count holds all 12,120.
      usage: { inputTokens: 12_120, outputTokens: 40, cacheReadTokens: 10_000, cacheWriteTokens: 2_000 },
      usageReported: true,
      model: SONNET,
      provider: 'bedrock',
      stopReason: 'end',
      rawStopReason: 'end_turn',
      attempts: 1,
    });
    // Sonnet 4.5: $3 in, $15 out; cache reads 0.1x and writes 1.25x of input.
    // 120*3 + 10000*0.3 + 2000*3.75 + 40*15 = 11,460 micro-dollars.
    expect(res.costUsd).toBeCloseTo(0.01146, 12);
  });

  test('each text delta reaches onTextDelta as it is folded, and the pieces join to the text', async () => {
    server.enqueue({ type: 'events', events: bedrockFixture('converse-stream-text'), chunkBytes: 13 });
    const pieces: string[] = [];
    const res = await provider().complete(request({ onTextDelta: (t) => pieces.push(t) }));
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(res.text);
  });

  test('a python toolUse whose input arrives in several deltas yields its code and id', async () => {
    server.enqueue({ type: 'events', events: bedrockFixture('converse-stream-tool-use') });
    const res = await provider().complete(request({ model: 'us.amazon.nova-pro-v1:0' }));
    expect(res).toMatchObject({
      text: 'Let me compute.',
      code: 'rows = [1, 2, 3]\nprint(sum(rows))',
      toolCallId: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
      stopReason: 'tool_call',
      rawStopReason: 'tool_use',
      usage: { inputTokens: 300, outputTokens: 55, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    // Nova Pro: $0.80 in, $3.20 out: 300*0.8 + 55*3.2 = 416 micro-dollars.
    expect(res.costUsd).toBeCloseTo(0.000416, 12);
  });

  test('every request is SigV4-signed for bedrock in the region, and the fake verifies it by re-signing', async () => {
    server.enqueue({ type: 'events', events: bedrockFixture('converse-stream-text') });
    await provider().complete(request());
    const [sent] = server.requests;
    expect(sent.auth).toBe('sigv4');
    expect(sent.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream');
    expect(sent.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLETEST\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=\S*host;\S*x-amz-date\S*, Signature=[0-9a-f]{64}$/,
    );
    expect(sent.headers['x-amz-security-token']).toBe('session-token-test');
    expect(sent.headers.accept).toBe('application/vnd.amazon.eventstream');
  });

  test('a wrong secret gets the service 403 InvalidSignatureException, which is not retried', async () => {
    const wrong = provider({ auth: { kind: 'sigv4', credentials: { ...TEST_CREDENTIALS, secretAccessKey: 'not-the-secret' } } });
    const err = await wrong.complete(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ status: 403, retryable: false });
    expect((err as Error).message).toMatch(/HTTP 403: InvalidSignatureException: The request signature we calculated/);
    expect(server.requests).toHaveLength(1);
  });

  test('a Bedrock API key goes as a bearer token, unsigned', async () => {
    server.enqueue({ type: 'events', events: bedrockFixture('converse-stream-text') });
    await provider({ auth: { kind: 'apiKey', apiKey: TEST_API_KEY } }).complete(request());
    expect(server.requests[0]).toMatchObject({ auth: 'bearer', headers: { authorization: `Bearer ${TEST_API_KEY}` } });
    expect(server.requests[0].headers['x-amz-date']).toBeUndefined();
  });

  test('HTTP 429 ThrottlingException is retried, and the retry is signed too', async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(
      { type: 'json', status: 429, errorType: 'ThrottlingException', body: { message: 'Too many requests, please wait before trying again.' } },
      { type: 'events', events: bedrockFixture('converse-stream-text') },
    );
    const res = await provider({}, retries).complete(request());
    expect(res.attempts).toBe(2);
    expect(retries[0].error.message).toMatch(/HTTP 429: ThrottlingException: Too many requests/);
    expect(server.requests.map((r) => r.auth)).toEqual(['sigv4', 'sigv4']);
  });

  test('a throttlingException frame mid-stream is retried and the retry starts clean', async () => {
    server.enqueue(
      { type: 'events', events: bedrockFixture('converse-stream-throttled') },
      { type: 'events', events: bedrockFixture('converse-stream-text') },
    );
    const res = await provider().complete(request());
    expect(res).toMatchObject({ text: 'Hello from Bedrock ✓', attempts: 2 });
  });

  test('a validationException frame fails at once, naming the exception', async () => {
    server.enqueue({ type: 'events', events: bedrockFixture('converse-stream-validation') });
    const err = await provider().complete(request()).catch((e: unknown) => e);
    expect(err).toMatchObject({ retryable: false });
    expect((err as Error).message).toMatch(/stream error: validationException: The model returned the following errors: Input is too long/);
    expect(server.requests).toHaveLength(1);
  });

  test('a stream cut inside a frame, or a frame failing its CRC, is retried', async () => {
    const text = bedrockFixture('converse-stream-text');
    server.enqueue(
      { type: 'events', events: text, cutAtByte: 150 },
      { type: 'events', events: text, corruptFrame: 2 },
      { type: 'events', events: text },
    );
    const retries: RetryInfo[] = [];
    const res = await provider({}, retries).complete(request());
    expect(res.attempts).toBe(3);
    expect(retries.map((r) => r.error.message)).toEqual([expect.stringMatching(/Truncated event message/), expect.stringMatching(/checksum/)]);
  });

  test('a stream that ends before messageStop is retried', async () => {
    server.enqueue(
      { type: 'events', events: bedrockFixture('converse-stream-text').slice(0, 3) },
      { type: 'events', events: bedrockFixture('converse-stream-text') },
    );
    expect((await provider().complete(request())).attempts).toBe(2);
  });
});

describe('the Converse request', () => {
  const history: ChatMessage[] = [
    { role: 'user', content: 'compute' },
    { role: 'assistant', content: 'Running.', code: 'print(2)', toolCallId: 'tooluse_1' },
    { role: 'tool', content: '2', toolCallId: 'tooluse_1' },
    { role: 'user', content: '[message from child-a] hello' },
  ];

  test('carries system blocks with cache points after the stable prefixes and the conversation, toolUse/toolResult blocks, the tool and maxTokens', async () => {
    server.enqueue({ type: 'events', events: bedrockFixture('converse-stream-text') });
    const system = 'BASE. HARNESS. context and goal';
    await provider().complete(request({ system, cacheBreaks: [6, 15], messages: history, maxTokens: 512 }));
    const cachePoint = { cachePoint: { type: 'default' } };
    expect(server.requests[0].body).toEqual({
      system: [{ text: 'BASE. ' }, cachePoint, { text: 'HARNESS. ' }, cachePoint, { text: 'context and goal' }],
      messages: [
        { role: 'user', content: [{ text: 'compute' }] },
        { role: 'assistant', content: [{ text: 'Running.' }, { toolUse: { toolUseId: 'tooluse_1', name: 'python', input: { code: 'print(2)' } } }] },
        { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: '2' }] } }, { text: '[message from child-a] hello' }, cachePoint] },
      ],
      inferenceConfig: { maxTokens: 512 },
      toolConfig: { tools: [{ toolSpec: { name: 'python', description: expect.any(String), inputSchema: { json: expect.objectContaining({ required: ['code'] }) } } }] },
    });
  });

  test('a model family without prompt caching, or a one-off call without cache breaks, gets no cache points', async () => {
    server.enqueue({ type: 'events', events: bedrockFixture('converse-stream-text') }, { type: 'events', events: bedrockFixture('converse-stream-text') });
    await provider().complete(request({ model: 'meta.llama3-3-70b-instruct-v1:0', cacheBreaks: [4] }));
    await provider().complete(request({ tools: 'none' }));
    for (const { body } of server.requests) expect(JSON.stringify(body)).not.toContain('cachePoint');
    expect(server.requests[1].body.toolConfig).toBeUndefined();
  });
});

describe('bedrock settings from the environment', () => {
  const keys = { AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret' };

  test('a region is required, from AWS_REGION or AWS_DEFAULT_REGION', () => {
    expect(() => bedrockSettings(keys)).toThrow(/AWS_REGION \(or AWS_DEFAULT_REGION\) is not set/);
    expect(bedrockSettings({ ...keys, AWS_DEFAULT_REGION: 'eu-west-1' }).region).toBe('eu-west-1');
  });

  test('an API key wins over IAM keys; IAM keys carry the session token; neither is an error naming both', () => {
    expect(bedrockSettings({ ...keys, AWS_REGION: 'us-west-2', AWS_BEARER_TOKEN_BEDROCK: 'k' }).auth).toEqual({ kind: 'apiKey', apiKey: 'k' });
    expect(bedrockSettings({ ...keys, AWS_REGION: 'us-west-2', AWS_SESSION_TOKEN: 't' }).auth).toEqual({
      kind: 'sigv4', credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret', sessionToken: 't' },
    });
    expect(() => createModel('bedrock/amazon.nova-pro-v1:0', { AWS_REGION: 'us-east-1' })).toThrow(
      /neither AWS_BEARER_TOKEN_BEDROCK nor AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set/,
    );
  });

  test('createModel binds bedrock/<modelId> to the Converse endpoint under BEDROCK_BASE_URL', async () => {
    server.enqueue({ type: 'events', events: bedrockFixture('converse-stream-text') });
    const env = { AWS_REGION: TEST_REGION, BEDROCK_BASE_URL: server.url, AWS_BEARER_TOKEN_BEDROCK: TEST_API_KEY };
    const model = createModel('bedrock/global.anthropic.claude-sonnet-4-5-20250929-v1:0', env);
    const res = await model.complete({ system: 's', messages: [{ role: 'user', content: 'hi' }], tools: 'python', agent: 'root', callIndex: 0 });
    expect(res.costUsd).toBeCloseTo(0.01146, 12);
    expect(server.requests[0].path).toBe('/model/global.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream');
  });
});
