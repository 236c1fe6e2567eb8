import type { ChatHistoryItem, Llama, LlamaChat, LlamaModel } from 'node-llama-cpp';
import { ProviderError } from '../../errors';
import { extractFencedPython } from './extract-code';
import { localModelFile, sha256File, type LocalModelsConfig } from './local-models';
import { withoutNativeToolCalls } from './messages';
import type { ChatMessage, ModelProvider, ModelRequest, ModelResponse, StopReason } from './types';

type Binding = typeof import('node-llama-cpp');

/**
 * A real dynamic import: node-llama-cpp is ESM-only, and TypeScript compiles `import()` into
 * `require()` under module commonjs, which cannot load it.
 */
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Binding>;

interface Loaded {
  model: LlamaModel;
  chat: LlamaChat;
}

const STOP: Record<string, StopReason> = { eogToken: 'end', stopGenerationTrigger: 'end', maxTokens: 'max_tokens' };

/**
 * `local/<name>`: a GGUF run on this process's CPU by llama.cpp (docs/local-model.md). The binding
 * and each model load once per process, on first use; calls run one at a time, since one context
 * sequence serves them all (and two at once would only share the same cores).
 */
export function createLocalProvider(config: LocalModelsConfig, load: () => Promise<Binding> = () => importEsm('node-llama-cpp')): ModelProvider {
  let llama: Promise<Llama> | null = null;
  const models = new Map<string, Promise<Loaded>>();
  let queue: Promise<unknown> = Promise.resolve();

  const open = (name: string): Promise<Loaded> => {
    let m = models.get(name);
    if (!m) {
      m = (async () => {
        const { path, sha256 } = localModelFile(name, config);
        if (sha256 !== null && (await sha256File(path)) !== sha256) {
          throw new ProviderError('local', `local/${name}: ${path} does not have the pinned SHA-256 ${sha256}; delete it and run \`recur setup\``, undefined, { retryable: false });
        }
        const binding = await load();
        // CPU only and never a build: a missing prebuilt binary fails here instead of compiling llama.cpp.
        llama ??= binding.getLlama({ gpu: false, build: 'never', logLevel: binding.LlamaLogLevel.error });
        const model = await (await llama).loadModel({ modelPath: path });
        const context = await model.createContext({ contextSize: config.contextTokens, threads: config.threads, sequences: 1 });
        return { model, chat: new binding.LlamaChat({ contextSequence: context.getSequence() }) };
      })();
      models.set(name, m);
      m.catch(() => models.delete(name));
    }
    return m;
  };

  return {
    name: 'local',
    complete(request) {
      const run = queue.then(() => generate(open, config, request));
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

async function generate(open: (name: string) => Promise<Loaded>, config: LocalModelsConfig, request: ModelRequest): Promise<ModelResponse> {
  const started = Date.now();
  const { model, chat } = await open(request.model);
  const history = toHistory(request.system, request.messages);
  // The prompt as the model's own chat template renders it, up to the reply's first token.
  const prompt = chat.chatWrapper.generateContextState({ chatHistory: [...history, { type: 'model', response: [] }] }).contextText;
  let outputTokens = 0;
  const res = await chat.generateResponse(history, {
    maxTokens: request.maxTokens ?? config.maxTokens,
    // Greedy by default: the same prompt gives the same reply.
    temperature: request.temperature ?? 0,
    signal: request.signal,
    onTextChunk: request.onTextDelta,
    onToken: (tokens) => (outputTokens += tokens.length),
  });
  const reason = res.metadata.stopReason;
  return {
    text: res.response,
    code: extractFencedPython(res.response),
    usage: { inputTokens: prompt.tokenize(model.tokenizer).length, outputTokens },
    usageReported: true,
    costUsd: 0,
    latencyMs: Date.now() - started,
    attempts: 1,
    model: request.model,
    provider: 'local',
    stopReason: STOP[reason] ?? 'other',
    rawStopReason: reason,
  };
}

/** Native calls are shown as fenced code: a local model is offered no tools. */
export function toHistory(system: string, messages: ChatMessage[]): ChatHistoryItem[] {
  return [
    ...(system ? [{ type: 'system' as const, text: system }] : []),
    ...withoutNativeToolCalls(messages).map((m): ChatHistoryItem =>
      m.role === 'assistant' ? { type: 'model', response: [m.content] } : { type: 'user', text: m.content }),
  ];
}
