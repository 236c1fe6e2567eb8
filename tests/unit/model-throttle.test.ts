import { ThrottledError } from '../../errors';
import { idempotencyKey } from '../../activities/model/idempotency';
import { parseGoDuration, throttleWaitMs } from '../../activities/model/rate-limit-reset';
import { createModel, type ModelOptions } from '../../activities/model/registry';
import type { ModelCall } from '../../activities/model/types';
import { anthropicError, anthropicText } from '../helpers/fake-anthropic-server';
import { startFakeBedrockServer, TEST_API_KEY, TEST_REGION, type FakeBedrockServer } from '../helpers/fake-bedrock-server';
import { openaiText } from '../helpers/fake-openai-server';
import { startFakeSseServer, type FakeReply, type FakeSseServer } from '../helpers/fake-sse-server';
import { errorFixture, fixtureText, sseFixture } from '../helpers/provider-fixtures';

/*
 * Every wire's throttle, against its local wire server: a wait the activity should not sleep
 * through ends the call with a ThrottledError carrying the provider's reset time (the workflow
 * waits it out, workflows/throttle-wait.ts); one within the cap is slept through and retried. The
 * call's idempotency key goes, the same on every attempt, only where the provider takes one.
 */

let server: FakeSseServer;
beforeEach(async () => (server = await startFakeSseServer()));
afterEach(() => server.close());

const KEY = idempotencyKey('root-abc', { callIndex: 3 });
const call: ModelCall = { system: 'You are root.', messages: [{ role: 'user', content: 'hi' }], tools: 'python', agent: 'root', callIndex: 3, idempotencyKey: KEY };
const retry = { baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 50, maxAttempts: 3 };

function model(spec: string, options: ModelOptions = {}) {
  const env = {
    OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${server.url}/v1`,
    ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url,
    GEMINI_API_KEY: 'gemini-key', GEMINI_BASE_URL: server.url,
    AZURE_OPENAI_ENDPOINT: server.url, AZURE_OPENAI_API_KEY: 'azure-key',
  };
  return createModel(spec, env, { retry, timeouts: { stallTimeoutMs: 30_000 }, ...options });
}

/** The ThrottledError a call ends with, and the wait it names from now. */
async function throttled(spec: string): Promise<{ error: ThrottledError; waitMs: number }> {
  const before = Date.now();
  const error = await model(spec).complete(call).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(ThrottledError);
  return { error: error as ThrottledError, waitMs: (error as ThrottledError).info.resetAtMs - before };
}

describe('a throttled call on each wire', () => {
  test('OpenAI chat: the longest x-ratelimit-reset-* duration ("6m0s" over "120ms") is the reset; not retried in the call', async () => {
    server.enqueue(errorFixture('openai', 'error-429-rate-limit.json'));
    const { error, waitMs } = await throttled('openai/gpt-4o-mini');
    expect(waitMs).toBeGreaterThanOrEqual(360_000 - 1000);
    expect(waitMs).toBeLessThanOrEqual(360_000 + 1000);
    expect(error.info).toMatchObject({ provider: 'openai', status: 429 });
    expect(error.info.reason).toContain('HTTP 429: tokens: Rate limit reached');
    expect(error.retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  test('OpenAI Responses: retry-after (120 s) wins over the reset headers', async () => {
    server.enqueue(errorFixture('openai-responses', 'error-429-long.json'));
    const { waitMs } = await throttled('openai-responses/gpt-4.1');
    expect(Math.abs(waitMs - 120_000)).toBeLessThan(1000);
  });

  test('Anthropic: a 429 with retry-after 90 resets in 90 s', async () => {
    server.enqueue(errorFixture('anthropic', 'error-429-rate-limit.json'));
    const { error, waitMs } = await throttled('anthropic/claude-sonnet-4-5');
    expect(Math.abs(waitMs - 90_000)).toBeLessThan(1000);
    expect(error.info.reason).toContain('rate_limit_error: This request would exceed the rate limit');
  });

  test('Anthropic: a 529 overloaded_error names no reset: retried in the call, then handed over with the backoff ceiling', async () => {
    const overloaded = errorFixture('anthropic', 'error-529-overloaded.json');
    server.enqueue(overloaded, overloaded, overloaded);
    const { error, waitMs } = await throttled('anthropic/claude-sonnet-4-5');
    expect(server.requests).toHaveLength(3);
    expect(error.info).toMatchObject({ status: 529 });
    expect(error.info.reason).toContain('overloaded_error: Overloaded');
    expect(waitMs).toBeLessThanOrEqual(retry.maxDelayMs + 100);
  });

  test('Gemini: RetryInfo "37s" in the body is the reset', async () => {
    server.enqueue(errorFixture('gemini', 'error-429.json'));
    const { error, waitMs } = await throttled('gemini/gemini-2.5-flash');
    expect(Math.abs(waitMs - 37_000)).toBeLessThan(1000);
    expect(error.info.reason).toContain('RESOURCE_EXHAUSTED');
  });

  test('Azure: retry-after-ms past the cap is handed over; within it, slept through', async () => {
    const azure429 = errorFixture('azure', 'error-429.json') as Extract<FakeReply, { type: 'json' }>;
    server.enqueue({ ...azure429, headers: { 'retry-after-ms': '90000', 'retry-after': '90' } });
    const { waitMs } = await throttled('azure/my-gpt4o');
    expect(Math.abs(waitMs - 90_000)).toBeLessThan(1000);
    server.enqueue(azure429, sseFixture('azure', 'text.sse'));
    expect(await model('azure/my-gpt4o').complete(call)).toMatchObject({ attempts: 2 });
  });
});

describe('Bedrock ThrottlingException', () => {
  let bedrock: FakeBedrockServer;
  beforeEach(async () => (bedrock = await startFakeBedrockServer()));
  afterEach(() => bedrock.close());

  test('HTTP 429 ThrottlingException with retry-after past the cap is handed over with its reset', async () => {
    bedrock.enqueue({ type: 'json', status: 429, errorType: 'ThrottlingException', headers: { 'retry-after': '45' }, body: { message: 'Too many requests, please wait before trying again.' } });
    const env = { AWS_REGION: TEST_REGION, AWS_BEARER_TOKEN_BEDROCK: TEST_API_KEY, BEDROCK_BASE_URL: bedrock.url };
    const before = Date.now();
    const error = await createModel('bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0', env, { retry }).complete(call).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThrottledError);
    expect(Math.abs((error as ThrottledError).info.resetAtMs - before - 45_000)).toBeLessThan(1000);
    expect((error as ThrottledError).info.reason).toContain('ThrottlingException: Too many requests');
    expect(bedrock.requests).toHaveLength(1);
  });
});

describe('the idempotency key', () => {
  test('OpenAI gets it as X-Client-Request-Id, the same on the retry of a throttled attempt', async () => {
    server.enqueue({ type: 'json', status: 429, headers: { 'retry-after-ms': '1' }, body: { error: { message: 'slow down', type: 'requests' } } }, openaiText('ok'));
    await model('openai/gpt-4o-mini').complete(call);
    expect(server.requests.map((r) => r.headers['x-client-request-id'])).toEqual([KEY, KEY]);
  });

  test('a provider that documents no such header (Anthropic) is sent none', async () => {
    server.enqueue(anthropicError(429, 'rate_limit_error', 'slow down', { 'retry-after': '0.001' }), anthropicText('ok'));
    await model('anthropic/claude-sonnet-4-5').complete(call);
    expect(server.requests.map((r) => r.headers['x-client-request-id'])).toEqual([undefined, undefined]);
  });

  test('made from the session and the call: the same for a call, distinct across calls and from the compaction calls', () => {
    expect(idempotencyKey('s1', { callIndex: 0 })).toBe(idempotencyKey('s1', { callIndex: 0 }));
    const keys = [idempotencyKey('s1', { callIndex: 0 }), idempotencyKey('s1', { callIndex: 1 }), idempotencyKey('s2', { callIndex: 0 }), idempotencyKey('s1', { compaction: 0 })];
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('reset headers', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');

  test('Anthropic without retry-after: the latest anthropic-ratelimit-*-reset', () => {
    const headers = new Headers(errorHeaders('anthropic', 'error-429-rate-limit.json'));
    headers.delete('retry-after');
    expect(throttleWaitMs(headers, undefined, true, now)).toBe(90_000);
  });

  test('reset headers count only on a throttle; a 500 names no wait', () => {
    expect(throttleWaitMs(new Headers({ 'x-ratelimit-reset-tokens': '6m0s' }), undefined, false, now)).toBeUndefined();
  });

  test('Go durations as OpenAI sends them', () => {
    expect(parseGoDuration('6m0s')).toBe(360_000);
    expect(parseGoDuration('20ms')).toBe(20);
    expect(parseGoDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseGoDuration('soon')).toBeUndefined();
  });
});

function errorHeaders(provider: string, name: string): Record<string, string> {
  return Object.fromEntries(fixtureText(provider, name).header.filter((l) => l.startsWith('header:')).map((l) => {
    const [key, ...value] = l.slice('header:'.length).split(':');
    return [key.trim(), value.join(':').trim()];
  }));
}
