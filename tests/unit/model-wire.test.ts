import { readErrorBody } from '../../activities/model/error-body';
import { costUsd, priceOf } from '../../activities/model/pricing';
import { DEFAULT_RETRY_POLICY, retryDelayMs } from '../../activities/model/retry';
import { parseRetryAfter } from '../../activities/model/rate-limit-reset';
import { SseParser } from '../../activities/model/sse';
import { fixtureText } from '../helpers/provider-fixtures';

describe('SSE parser', () => {
  const bytes = (s: string) => new TextEncoder().encode(s);

  test('events split anywhere, CRLF or LF, comments and multi-line data', () => {
    const stream = 'event: a\r\ndata: {"x":\r\ndata: 1}\r\n\r\n: ping\n\ndata: é\n\n';
    const encoded = bytes(stream);
    const parser = new SseParser();
    const events = [];
    for (let i = 0; i < encoded.length; i++) events.push(...parser.push(encoded.subarray(i, i + 1)));
    expect(events).toEqual([
      { event: 'a', data: '{"x":\n1}' },
      { event: '', data: 'é' },
    ]);
  });

  test('an event without its closing blank line is not emitted', () => {
    expect(new SseParser().push(bytes('data: half'))).toEqual([]);
  });
});

describe('retry timing', () => {
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };

  test('backoff doubles per attempt within [half, full] of its ceiling, capped', () => {
    expect(retryDelayMs(1, undefined, policy, () => 0)).toBe(50);
    expect(retryDelayMs(1, undefined, policy, () => 1)).toBe(100);
    expect(retryDelayMs(3, undefined, policy, () => 1)).toBe(400);
    expect(retryDelayMs(10, undefined, policy, () => 1)).toBe(1000);
  });

  test('a retry-after is used as given, up to the cap', () => {
    expect(retryDelayMs(1, 1000, policy)).toBe(1000);
    expect(retryDelayMs(1, 120_000, policy)).toBe(5000);
  });

  test('retry-after headers: ms, seconds, HTTP date, garbage', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:10 GMT' }), now)).toBe(10_000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });
});

describe('pricing', () => {
  test('a dated snapshot is priced as its model; an unknown model costs 0', () => {
    expect(priceOf('openai', 'gpt-4o-2024-08-06')).toEqual(priceOf('openai', 'gpt-4o'));
    expect(priceOf('anthropic', 'claude-sonnet-4-5-20250929')).toMatchObject({ inputPerMTok: 3, outputPerMTok: 15 });
    expect(costUsd('openai', 'gpt-4o-mini', { inputTokens: 2_000_000, outputTokens: 1_000_000 })).toBeCloseTo(0.9, 10);
    expect(costUsd('vllm', 'my-finetune', { inputTokens: 5_000, outputTokens: 5_000 })).toBe(0);
    expect(costUsd('gemini', 'gemini-2.5-pro', { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBeCloseTo(11.25, 10);
  });
});

describe('error bodies', () => {
  const body = (provider: string, name: string) => fixtureText(provider, name).body;

  test('OpenAI and Anthropic shapes: type and message', () => {
    expect(readErrorBody('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toEqual({ detail: 'overloaded_error: Overloaded' });
    expect(readErrorBody(body('openai-responses', 'error-429.json')).detail).toMatch(/^tokens: Rate limit reached for gpt-4.1/);
  });

  test('Google shape: status, message, the ErrorInfo reason, the RetryInfo wait; also wrapped in an array', () => {
    expect(readErrorBody(body('gemini', 'error-429.json'))).toEqual({
      detail: expect.stringMatching(/^RESOURCE_EXHAUSTED: You exceeded your current quota/),
      retryAfterMs: 37_000,
    });
    expect(readErrorBody(body('gemini', 'error-400.json')).detail).toBe(
      'INVALID_ARGUMENT: API key not valid. Please pass a valid API key. (API_KEY_INVALID)',
    );
    const fractional = '[{"error":{"code":503,"status":"UNAVAILABLE","message":"busy","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]}}]';
    expect(readErrorBody(fractional)).toEqual({ detail: 'UNAVAILABLE: busy', retryAfterMs: 1500 });
  });

  test('Azure shape: a word code names the error, a numeric one does not; filtered categories are listed', () => {
    expect(readErrorBody(body('azure', 'error-404.json')).detail).toMatch(/^DeploymentNotFound: The API deployment/);
    expect(readErrorBody(body('azure', 'error-429.json')).detail).toMatch(/^Requests to the ChatCompletions_Create/);
    expect(readErrorBody(body('azure', 'error-400-content-filter.json')).detail).toMatch(/^content_filter: .*\(filtered: jailbreak\)$/);
  });

  test('anything else is quoted, shortened', () => {
    expect(readErrorBody('<html>502 Bad Gateway</html>')).toEqual({ detail: '<html>502 Bad Gateway</html>' });
    expect(readErrorBody('  ')).toEqual({ detail: '(empty body)' });
    expect(readErrorBody('{"message":"plain"}')).toEqual({ detail: 'plain' });
    expect(readErrorBody('x'.repeat(800)).detail).toHaveLength(500);
  });
});

