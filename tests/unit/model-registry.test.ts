import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProviderError } from '../../errors';
import { createModel, parseModelSpec } from '../../activities/model/registry';
import { openaiText, startFakeOpenAIServer } from '../helpers/fake-openai-server';
import { anthropicText, startFakeAnthropicServer } from '../helpers/fake-anthropic-server';

const call = { system: '', messages: [{ role: 'user' as const, content: 'hi' }], tools: 'none' as const, agent: 'root', callIndex: 0 };

describe('model specs', () => {
  test.each([
    ['openai/gpt-4o', { provider: 'openai', model: 'gpt-4o' }],
    ['anthropic/claude-sonnet-4-5', { provider: 'anthropic', model: 'claude-sonnet-4-5' }],
    ['ollama/llama3.1:8b', { provider: 'ollama', model: 'llama3.1:8b' }],
    ['openrouter/meta-llama/llama-3.1-8b-instruct', { provider: 'openrouter', model: 'meta-llama/llama-3.1-8b-instruct' }],
    ['scripted:/tmp/replies.json', { provider: 'scripted', path: '/tmp/replies.json' }],
  ])('%s parses', (spec, parsed) => {
    expect(parseModelSpec(spec)).toEqual(parsed);
  });

  test('an unknown provider is an error listing the known ones', () => {
    expect(() => parseModelSpec('mistral/large')).toThrow(ProviderError);
    expect(() => parseModelSpec('mistral/large')).toThrow(
      /unknown provider "mistral"; known: openai, anthropic, vllm, ollama, lmstudio, groq, fireworks, openrouter, local .*scripted:<file.json>/,
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
});
