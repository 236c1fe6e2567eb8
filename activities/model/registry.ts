import { ProviderError } from '../../errors';
import { createAnthropicProvider } from './anthropic';
import { createLocalProvider } from './local';
import type { LocalModelsConfig } from './local-models';
import { createOpenAIProvider } from './openai';
import { PROVIDERS, type ProviderName, type ProviderPreset } from './providers';
import { createScriptedModel, loadScript } from './scripted';
import type { ProviderOptions } from './streaming-call';
import type { Model, ModelProvider } from './types';

export type ModelSpec = { provider: 'scripted'; path: string } | { provider: ProviderName | 'local'; model: string };

export type Env = Record<string, string | undefined>;

const KNOWN = `${Object.keys(PROVIDERS).join(', ')}, local (as <provider>/<model>) and scripted:<file.json>`;

/**
 * `openai/gpt-4o`, `anthropic/claude-sonnet-4-5`, `ollama/llama3.1:8b`, `scripted:replies.json`.
 * Only the first `/` splits, since model names may hold more (`openrouter/meta-llama/llama-3-8b`).
 */
export function parseModelSpec(spec: string): ModelSpec {
  if (spec.startsWith('scripted:')) {
    const path = spec.slice('scripted:'.length);
    if (!path) throw specError(spec, 'scripted: needs a file, as in scripted:replies.json');
    return { provider: 'scripted', path };
  }
  const slash = spec.indexOf('/');
  if (slash <= 0 || slash === spec.length - 1) throw specError(spec, `expected <provider>/<model>; known: ${KNOWN}`);
  const provider = spec.slice(0, slash);
  if (provider !== 'local' && !Object.hasOwn(PROVIDERS, provider)) throw specError(spec, `unknown provider "${provider}"; known: ${KNOWN}`);
  return { provider: provider as ProviderName | 'local', model: spec.slice(slash + 1) };
}

export interface ModelOptions extends ProviderOptions {
  /** Directories a `scripted:` file may be read from (config `agent.scriptedDirs`); none: every script is refused. */
  scriptedDirs?: readonly string[];
  /** Where `local/<name>` finds its GGUF and how it runs it; absent: local models are refused. */
  local?: LocalModelsConfig;
}

/**
 * A model bound to `spec`. Keys and base-URL overrides come from `env` (pass `process.env`);
 * a missing key fails here, naming the variable, not at the first call. A scripted file is
 * read and checked here too, and only from `scriptedDirs`.
 */
export function createModel(spec: string, env: Env, options: ModelOptions = {}): Model {
  const parsed = parseModelSpec(spec);
  if (parsed.provider === 'scripted') {
    return bind(createScriptedModel(loadScript(parsed.path, options.scriptedDirs ?? []), parsed.path), parsed.path);
  }
  if (parsed.provider === 'local') {
    if (!options.local) throw specError(spec, 'local models run only in the worker (no local model settings here)');
    return bind(localProvider(options.local), parsed.model);
  }
  const preset: ProviderPreset = PROVIDERS[parsed.provider];
  const apiKey = env[preset.keyEnv] || undefined;
  if (preset.keyRequired && !apiKey) {
    throw new ProviderError(parsed.provider, `${preset.keyEnv} is not set; model ${spec} needs it`, undefined, { retryable: false });
  }
  const baseUrl = env[preset.baseUrlEnv] || preset.baseUrl;
  const provider =
    preset.wire === 'anthropic'
      ? createAnthropicProvider({ ...options, baseUrl, apiKey: apiKey ?? '' })
      : createOpenAIProvider({ ...options, name: parsed.provider, baseUrl, apiKey, maxTokensField: preset.maxTokensField });
  return bind(provider, parsed.model);
}

/** One local provider per process, so a model loads once however many sessions use it. */
let local: ReturnType<typeof createLocalProvider> | null = null;
function localProvider(config: LocalModelsConfig) {
  return (local ??= createLocalProvider(config));
}

function bind(provider: ModelProvider, model: string): Model {
  return { provider: provider.name, model, complete: (call) => provider.complete({ ...call, model }) };
}

function specError(spec: string, problem: string): ProviderError {
  return new ProviderError('model spec', `"${spec}": ${problem}`, undefined, { retryable: false });
}
