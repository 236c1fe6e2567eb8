import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProviderError } from '../../errors';
import { createModel, parseModelSpec } from '../../activities/model/registry';
import { openaiText, startFakeOpenAIServer } from '../helpers/fake-openai-server';
import { anthropicText, startFakeAnthropicServer } from '../helpers/fake-anthropic-server';
import { startFakeSseServer } from '../helpers/fake-sse-server';
import { sseFixture } from '../helpers/provider-fixtures';

const call = { system: '', messages: [{ role: 'user' as const, content: 'hi' }], tools: 'none' as const, agent: 'root', callIndex: 0 };

describe('model specs', () => {
  test.each([
    ['openai/gpt-4o', { provider: 'openai', model: 'gpt-4o' }],
    ['anthropic/claude-sonnet-4-5', { provider: 'anthropic', model: 'claude-sonnet-4-5' }],
    ['ollama/llama3.1:8b', { provider: 'ollama', model: 'llama3.1:8b' }],
    ['openrouter/meta-llama/llama-3.1-8b-instruct', { provider: 'openrouter', model: 'meta-llama/llama-3.1-8b-instruct' }],
    ['scripted:/tmp/replies.json', { provider: 'scripted', path: '/tmp/replies.json' }],
    ['gemini/gemini-2.5-flash', { provider: 'gemini', model: 'gemini-2.5-flash' }],
    ['azure/my-gpt4o-deployment', { provider: 'azure', model: 'my-gpt4o-deployment' }],
    ['openai-responses/gpt-5', { provider: 'openai-responses', model: 'gpt-5' }],
  ])('%s parses', (spec, parsed) => {
    expect(parseModelSpec(spec)).toEqual(parsed);
  });

  test('an unknown provider is an error listing the known ones', () => {
    expect(() => parseModelSpec('mistral/large')).toThrow(ProviderError);
    expect(() => parseModelSpec('mistral/large')).toThrow(
      /unknown provider "mistral"; known: openai, anthropic, vllm, .*, copilot, gemini, azure, openai-responses, bedrock.* \(as <provider>\/<model>\) and scripted:<file.json>/,
    );
  });

  test.each(['gpt-4o', 'openai/', '/gpt-4o', 'scripted:'])('%s is malformed', (spec) => {
    expect(() => parseModelSpec(spec)).toThrow(ProviderError);
  });

  test('a missing key is an error naming the env var', () => {
    expect(() => createModel('openai/gpt-4o', {})).toThrow(/OPENAI_API_KEY is not set/);
    expect(() => createModel('anthropic/claude-haiku-4-5', { OPENAI_API_KEY: 'x' })).toThrow(/ANTHROPIC_API_KEY is not set/);
    expect(() => createModel('groq/llama-3.3-70b-versatile', {})).toThrow(/GROQ_API_KEY/);
  });

  test('local servers need no key', () => {
    expect(createModel('vllm/Qwen/Qwen2.5-7B-Instruct', {})).toMatchObject({ provider: 'vllm', model: 'Qwen/Qwen2.5-7B-Instruct' });
    expect(createModel('lmstudio/qwen2.5-7b', {})).toMatchObject({ provider: 'lmstudio' });
  });

  test('OPENAI_BASE_URL routes openai/ and the spec model is the one sent', async () => {
    const server = await startFakeOpenAIServer();
    try {
      server.enqueue(openaiText('hello'));
      const model = createModel('openai/gpt-4.1', { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: `${server.url}/v1` });
      const res = await model.complete({ ...call, maxTokens: 5 });
      expect(res.text).toBe('hello');
      expect(server.requests[0].headers.authorization).toBe('Bearer sk-env');
      expect(server.requests[0].body).toMatchObject({ model: 'gpt-4.1', max_completion_tokens: 5 });
    } finally {
      await server.close();
    }
  });

  test('a preset takes its own base URL variable and sends its key when set', async () => {
    const server = await startFakeOpenAIServer();
    try {
      server.enqueue(openaiText('hi'));
      const model = createModel('ollama/llama3.1:8b', { OLLAMA_BASE_URL: `${server.url}/v1`, OLLAMA_API_KEY: 'ol' });
      expect(await model.complete({ ...call, maxTokens: 5 })).toMatchObject({ provider: 'ollama', costUsd: 0 });
      expect(server.requests[0].headers.authorization).toBe('Bearer ol');
      expect(server.requests[0].body).toMatchObject({ model: 'llama3.1:8b', max_tokens: 5 });
    } finally {
      await server.close();
    }
  });

  test('ANTHROPIC_BASE_URL routes anthropic/ and pricing can be overridden', async () => {
    const server = await startFakeAnthropicServer();
    try {
      server.enqueue(anthropicText('hi', { usage: { input: 1_000_000, output: 0 } }));
      const env = { ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: server.url };
      const model = createModel('anthropic/claude-house', env, { pricing: { 'anthropic/claude-house': { inputPerMTok: 7, outputPerMTok: 1 } } });
      expect(await model.complete(call)).toMatchObject({ provider: 'anthropic', costUsd: 7 });
      expect(server.requests[0].headers['x-api-key']).toBe('sk-ant');
    } finally {
      await server.close();
    }
  });

  test('scripted:<file> reads the file when the model is created, only from an allowed directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recur-spec-'));
    const file = join(dir, 'replies.json');
    writeFileSync(file, JSON.stringify({ agents: { root: ['```python\nprint(1)\n```'] } }));
    const model = createModel(`scripted:${file}`, {}, { scriptedDirs: [dir] });
    expect(await model.complete(call)).toMatchObject({ provider: 'scripted', code: 'print(1)' });
    expect(() => createModel(`scripted:${file}.missing`, {}, { scriptedDirs: [dir] })).toThrow(/replies\.json\.missing: cannot read/);
    expect(() => createModel(`scripted:${file}`, {})).toThrow(/not under a directory scripted models may read from \(none\)/);
    expect(() => createModel('scripted:/etc/passwd', {}, { scriptedDirs: [dir] })).toThrow(/\/etc\/passwd: not under a directory/);
  });

  test('gemini/ takes GEMINI_API_KEY, else GOOGLE_API_KEY, and GEMINI_BASE_URL', async () => {
    expect(() => createModel('gemini/gemini-2.5-flash', {})).toThrow(/GEMINI_API_KEY \(or GOOGLE_API_KEY\) is not set/);
    const server = await startFakeSseServer();
    try {
      server.enqueue(sseFixture('gemini', 'text.sse'), sseFixture('gemini', 'text.sse'));
      const base = { GEMINI_BASE_URL: server.url };
      await createModel('gemini/gemini-2.5-flash', { ...base, GOOGLE_API_KEY: 'google' }).complete(call);
      await createModel('gemini/gemini-2.5-flash', { ...base, GOOGLE_API_KEY: 'google', GEMINI_API_KEY: 'gemini' }).complete(call);
      expect(server.requests.map((r) => r.headers['x-goog-api-key'])).toEqual(['google', 'gemini']);
      expect(server.requests[0].path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    } finally {
      await server.close();
    }
  });

  test('azure/ needs an endpoint and a key or Entra token; the api-version has a pinned default and can be set', async () => {
    expect(() => createModel('azure/dep', { AZURE_OPENAI_API_KEY: 'k' })).toThrow(/AZURE_OPENAI_ENDPOINT is not set; model azure\/dep needs it/);
    expect(() => createModel('azure/dep', { AZURE_OPENAI_ENDPOINT: 'https://x' })).toThrow(/AZURE_OPENAI_API_KEY \(or AZURE_OPENAI_AD_TOKEN\) is not set/);
    const server = await startFakeSseServer();
    try {
      server.enqueue(sseFixture('azure', 'text.sse'), sseFixture('azure', 'text.sse'));
      await createModel('azure/dep', { AZURE_OPENAI_ENDPOINT: server.url, AZURE_OPENAI_API_KEY: 'k', AZURE_OPENAI_AD_TOKEN: 't' }).complete(call);
      const entra = { AZURE_OPENAI_ENDPOINT: server.url, AZURE_OPENAI_AD_TOKEN: 't', AZURE_OPENAI_API_VERSION: '2024-12-01-preview' };
      expect(await createModel('azure/dep', entra).complete(call)).toMatchObject({ provider: 'azure', model: 'gpt-4o-2024-11-20' });
      const [withKey, withToken] = server.requests;
      expect(withKey.path).toBe('/openai/deployments/dep/chat/completions?api-version=2025-04-01-preview');
      expect([withKey.headers['api-key'], withKey.headers.authorization]).toEqual(['k', undefined]);
      expect(withToken.path).toBe('/openai/deployments/dep/chat/completions?api-version=2024-12-01-preview');
      expect([withToken.headers['api-key'], withToken.headers.authorization]).toEqual([undefined, 'Bearer t']);
    } finally {
      await server.close();
    }
  });

  test('openai-responses/ shares OPENAI_API_KEY and OPENAI_BASE_URL', async () => {
    expect(() => createModel('openai-responses/gpt-5', {})).toThrow(/OPENAI_API_KEY is not set/);
    const server = await startFakeSseServer();
    try {
      server.enqueue(sseFixture('openai-responses', 'text.sse'));
      const model = createModel('openai-responses/gpt-4.1', { OPENAI_API_KEY: 'sk-r', OPENAI_BASE_URL: `${server.url}/v1` });
      expect(await model.complete(call)).toMatchObject({ provider: 'openai-responses', text: 'Hello, wörld 🎉 done' });
      expect(server.requests[0]).toMatchObject({ path: '/v1/responses', headers: { authorization: 'Bearer sk-r' }, body: { model: 'gpt-4.1' } });
    } finally {
      await server.close();
    }
  });
});
