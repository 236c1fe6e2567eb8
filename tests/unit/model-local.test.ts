import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalProvider, toHistory } from '../../activities/model/local';
import { SMOLLM2, localModelFile, type LocalModelsConfig } from '../../activities/model/local-models';
import { createModel, parseModelSpec } from '../../activities/model/registry';
import type { ModelRequest } from '../../activities/model/types';

/*
 * The local provider's own logic against a stand-in for node-llama-cpp (the binding is ESM-only
 * and loads only outside jest's module sandbox; tests/integration/local-model.test.ts runs the
 * real one): history in the model's chat format, greedy by default, counts from its tokenizer,
 * one call at a time, pinned files checked.
 */
const dir = mkdtempSync(join(tmpdir(), 'recur-local-'));
writeFileSync(join(dir, 'tiny.gguf'), 'not really a model');
const config = (over: Partial<LocalModelsConfig> = {}): LocalModelsConfig => ({ installedDir: dir, modelsDir: dir, threads: 2, contextTokens: 2048, maxTokens: 64, ...over });

interface Seen { history: unknown[]; options: Record<string, unknown> }

function fakeBinding(reply: string, stopReason = 'eogToken', log: string[] = []) {
  const seen: Seen[] = [];
  let loads = 0;
  const binding = {
    LlamaLogLevel: { error: 'error' },
    getLlama: async (opts: unknown) => ({
      opts,
      loadModel: async ({ modelPath }: { modelPath: string }) => {
        loads++;
        return {
          modelPath,
          tokenizer: 'tok',
          createContext: async (o: unknown) => ({ o, getSequence: () => ({}) }),
        };
      },
    }),
    LlamaChat: class {
      chatWrapper = {
        generateContextState: ({ chatHistory }: { chatHistory: unknown[] }) => ({
          contextText: { tokenize: (t: string) => (t === 'tok' ? new Array(10 * chatHistory.length) : []) },
        }),
      };
      async generateResponse(history: unknown[], options: Record<string, unknown>) {
        log.push('start');
        seen.push({ history, options });
        await new Promise((r) => setTimeout(r, 5));
        (options.onTextChunk as ((t: string) => void) | undefined)?.(reply.slice(0, 3));
        (options.onTextChunk as ((t: string) => void) | undefined)?.(reply.slice(3));
        (options.onToken as (t: number[]) => void)([1, 2]);
        (options.onToken as (t: number[]) => void)([3]);
        log.push('end');
        return { response: reply, metadata: { stopReason } };
      }
    },
  };
  return { load: async () => binding as never, seen, loads: () => loads };
}

const request = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'tiny', system: 'be brief', messages: [{ role: 'user', content: 'compute 17 * 23' }], tools: 'python', agent: 'root', callIndex: 0, ...over,
});

test('a reply: fenced code parsed, usage from the tokenizer (reported), greedy and the configured length by default, free', async () => {
  const fake = fakeBinding('Sure.\n```python\nprint(17 * 23)\n```\n');
  const res = await createLocalProvider(config(), fake.load).complete(request());
  expect(res).toMatchObject({
    text: 'Sure.\n```python\nprint(17 * 23)\n```\n', code: 'print(17 * 23)', provider: 'local', model: 'tiny',
    // The prompt rendered by the chat template (system, user, the open model turn) and the three generated tokens.
    usage: { inputTokens: 30, outputTokens: 3 }, usageReported: true, costUsd: 0, stopReason: 'end', rawStopReason: 'eogToken',
  });
  expect(fake.seen[0].options).toMatchObject({ temperature: 0, maxTokens: 64 });
  expect(fake.seen[0].history).toEqual([{ type: 'system', text: 'be brief' }, { type: 'user', text: 'compute 17 * 23' }]);
});

test('a reply cut off by maxTokens says so; the request\'s own length and temperature win', async () => {
  const fake = fakeBinding('```python\nfor i in', 'maxTokens');
  const res = await createLocalProvider(config(), fake.load).complete(request({ maxTokens: 8, temperature: 0.7 }));
  expect(res).toMatchObject({ code: null, stopReason: 'max_tokens' });
  expect(fake.seen[0].options).toMatchObject({ temperature: 0.7, maxTokens: 8 });
});

test('reply text streams to the caller as the model generates it', async () => {
  const fake = fakeBinding('17 * 23 = 391');
  const deltas: string[] = [];
  const res = await createLocalProvider(config(), fake.load).complete(request({ onTextDelta: (t) => deltas.push(t) }));
  expect(deltas).toEqual(['17 ', '* 23 = 391']);
  expect(deltas.join('')).toBe(res.text);
});

test('calls run one at a time, and the model loads once', async () => {
  const log: string[] = [];
  const fake = fakeBinding('ok', 'eogToken', log);
  const provider = createLocalProvider(config(), fake.load);
  await Promise.all([provider.complete(request()), provider.complete(request()), provider.complete(request())]);
  expect(log).toEqual(['start', 'end', 'start', 'end', 'start', 'end']);
  expect(fake.loads()).toBe(1);
});

test('history: native calls become fenced code, tool results user turns, assistant turns model responses', () => {
  expect(toHistory('', [
    { role: 'user', content: 'task' },
    { role: 'assistant', content: 'running', code: 'x = 1', toolCallId: 'c1' },
    { role: 'tool', content: '[no output]', toolCallId: 'c1' },
  ])).toEqual([
    { type: 'user', text: 'task' },
    { type: 'model', response: ['running\n\n```python\nx = 1\n```'] },
    { type: 'user', text: '[no output]' },
  ]);
});

test('the pinned model is checked by SHA-256 before it loads', async () => {
  writeFileSync(join(dir, SMOLLM2.file), 'a substituted file');
  const fake = fakeBinding('ok');
  await expect(createLocalProvider(config(), fake.load).complete(request({ model: 'smollm2' })))
    .rejects.toMatchObject({ retryable: false, message: expect.stringContaining(`does not have the pinned SHA-256 ${SMOLLM2.sha256}`) });
  expect(fake.loads()).toBe(0);
});

test('a missing model names the command or setting that provides it', () => {
  const empty = mkdtempSync(join(tmpdir(), 'recur-local-empty-'));
  expect(() => localModelFile('smollm2', config({ installedDir: empty }))).toThrow(/run `recur setup` to install it/);
  expect(() => localModelFile('other', config({ modelsDir: null }))).toThrow(/set RECUR_LOCAL_MODELS_DIR/);
  expect(() => localModelFile('other', config())).toThrow(/other\.gguf does not exist/);
  expect(() => localModelFile('../etc/passwd', config())).toThrow(/a local model name is a file stem/);
  expect(localModelFile('tiny', config())).toEqual({ path: join(dir, 'tiny.gguf'), sha256: null });
});

test('local/<name> is a model spec; outside the worker it is refused, naming why', () => {
  expect(parseModelSpec('local/smollm2')).toEqual({ provider: 'local', model: 'smollm2' });
  expect(() => createModel('local/smollm2', {})).toThrow(/local models run only in the worker/);
});
