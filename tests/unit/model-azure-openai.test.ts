import { ProviderError } from '../../errors';
import { createAzureOpenAIProvider, type AzureOpenAIProviderConfig } from '../../activities/model/azure-openai';
import type { RetryInfo } from '../../activities/model/retry';
import type { ModelRequest } from '../../activities/model/types';
import { startFakeSseServer, type FakeSseServer } from '../helpers/fake-sse-server';
import { cutShort, errorFixture, sseFixture } from '../helpers/provider-fixtures';

let server: FakeSseServer;
beforeEach(async () => (server = await startFakeSseServer()));
afterEach(() => server.close());

const text = () => sseFixture('azure', 'text.sse');
const error = (name: string) => errorFixture('azure', name);

function provider(over: Partial<AzureOpenAIProviderConfig> = {}, retries: RetryInfo[] = []) {
  return createAzureOpenAIProvider({
    endpoint: `${server.url}/`,
    apiVersion: '2025-04-01-preview',
    auth: { apiKey: 'azure-key' },
    retry: { baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 5_000 },
    // Long enough for a loaded machine; the stall tests set a short one of their own.
    timeouts: { stallTimeoutMs: 30_000 },
    onRetry: (info) => retries.push(info),
    ...over,
  });
}

function request(over: Partial<ModelRequest> = {}): ModelRequest {
  return { model: 'my-gpt4o', system: 'You are root.', messages: [{ role: 'user', content: 'hi' }], tools: 'python', agent: 'root', callIndex: 0, ...over };
}

describe('Azure OpenAI provider', () => {
  test('the request goes to the deployment with the api-version, the api-key header and the Chat Completions body', async () => {
    server.enqueue(text());
    await provider().complete(request({ maxTokens: 64 }));
    const [sent] = server.requests;
    expect(sent.path).toBe('/openai/deployments/my-gpt4o/chat/completions?api-version=2025-04-01-preview');
    expect(sent.headers['api-key']).toBe('azure-key');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toMatchObject({
      model: 'my-gpt4o',
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 64,
      messages: [
        { role: 'system', content: 'You are root.' },
        { role: 'user', content: 'hi' },
      ],
      tools: [{ type: 'function', function: expect.objectContaining({ name: 'python' }) }],
    });
  });

  test('an Entra ID token goes as a bearer token instead', async () => {
    server.enqueue(text());
    await provider({ auth: { adToken: 'eyJ0eXAi.entra' } }).complete(request());
    expect(server.requests[0].headers.authorization).toBe('Bearer eyJ0eXAi.entra');
    expect(server.requests[0].headers['api-key']).toBeUndefined();
  });

  test('streamed text past the prompt-filter chunk, with usage and the model Azure reports', async () => {
    server.enqueue(text());
    const res = await provider().complete(request());
    expect(res).toMatchObject({
      text: 'Hello from Azure, wörld 🎉',
      usage: { inputTokens: 1_000_000, outputTokens: 500_000 },
      usageReported: true,
      model: 'gpt-4o-2024-11-20',
      provider: 'azure',
      stopReason: 'end',
      rawStopReason: 'stop',
    });
    // No list price for a deployment name; a table entry for the model Azure reports prices it.
    expect(res.costUsd).toBe(0);
    server.enqueue(text());
    const priced = await provider({ pricing: { 'azure/gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 } } }).complete(request());
    expect(priced.costUsd).toBeCloseTo(7.5, 10);
  });

  test('a python tool call', async () => {
    server.enqueue(sseFixture('azure', 'tool-call.sse'));
    const res = await provider().complete(request());
    expect(res).toMatchObject({ code: 'print(6 * 7)', toolCallId: 'call_4kX9tWmQ2bN8sLpR0vYc', stopReason: 'tool_call', usage: { inputTokens: 96, outputTokens: 18 } });
  });

  test('an answer stopped by the output content filter keeps its text and says content_filter', async () => {
    server.enqueue(sseFixture('azure', 'content-filter.sse'));
    const res = await provider().complete(request());
    expect(res).toMatchObject({ text: 'Step one:', stopReason: 'other', rawStopReason: 'content_filter', attempts: 1 });
  });

  test('a prompt rejected by the content filter fails at once, naming the code and the filtered category', async () => {
    server.enqueue(error('error-400-content-filter.json'), text());
    const err = await provider().complete(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ provider: 'azure', status: 400, retryable: false });
    expect((err as Error).message).toMatch(/^azure: HTTP 400: content_filter: The response was filtered .* \(filtered: jailbreak\)$/);
    expect(server.requests).toHaveLength(1);
  });

  test('an unknown deployment is a clear 404', async () => {
    server.enqueue(error('error-404.json'));
    await expect(provider().complete(request())).rejects.toMatchObject({
      status: 404,
      retryable: false,
      message: expect.stringContaining('HTTP 404: DeploymentNotFound: The API deployment for this resource does not exist'),
    });
  });

  test('a 429 is retried after the retry-after-ms Azure sends, then succeeds', async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(error('error-429.json'), text());
    const res = await provider({}, retries).complete(request());
    expect(res).toMatchObject({ text: 'Hello from Azure, wörld 🎉', attempts: 2 });
    expect(retries.map((r) => r.delayMs)).toEqual([35]);
    expect(retries[0].error.message).toContain('HTTP 429: Requests to the ChatCompletions_Create Operation');
  });

  test('a stream cut before [DONE] and the finish chunk is retried', async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(cutShort(text(), 3), text());
    expect(await provider({}, retries).complete(request())).toMatchObject({ attempts: 2, text: 'Hello from Azure, wörld 🎉' });
    expect(retries[0].error.message).toContain('stream ended before the completion finished');
  });
});
