import { ProviderError } from '../../errors';
import { createAnthropicProvider } from './anthropic';
import { createLoginProvider, LOGIN_FLOWS } from './auth/login-provider';
import { readLogin } from './auth/login-store';
import { AZURE_OPENAI_DEFAULT_API_VERSION, createAzureOpenAIProvider } from './azure-openai';
import { createGeminiProvider } from './gemini';
import { bedrockSettings, createBedrockProvider } from './bedrock';
import { createLocalProvider } from './local';
import type { LocalModelsConfig } from './local-models';
import { createOpenAIProvider } from './openai';
import { createOpenAIResponsesProvider } from './openai-responses';
import { PROVIDERS, type ProviderName, type ProviderPreset } from './providers';
import { createScriptedModel, loadScript } from './scripted';
import type { ProviderOptions } from './streaming-call';
import type { Env, Model, ModelProvider } from './types';

export type ModelSpec = { provider: 'scripted'; path: string } | { provider: ProviderName | 'local'; model: string };

const KNOWN = `${Object.keys(PROVIDERS).join(', ')}, local (as <provider>/<model>) and scripted:<file.json>`;

/**
 * `openai/gpt-4o`, `anthropic/claude-sonnet-4-5`, `ollama/llama3.1:8b`, `scripted:replies.json`.
 * Only the first `/` splits, since model names may hold more (`openrouter/meta-llama/llama-3-8b`,
 * `bedrock/arn:aws:bedrock:…:inference-profile/…`).
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
  /** Where `recur login` stores logins (the home's `logins/`); without it a login-backed model fails here. */
  loginsDir?: string;
  /** Where `local/<name>` finds its GGUF and how it runs it; absent: local models are refused. */
  local?: LocalModelsConfig;
}

/**
 * A model bound to `spec`. Keys and base-URL overrides come from `env` (pass `process.env`);
 * a missing key or login fails here, naming what is missing, not at the first call. A scripted file is
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
  const name = parsed.provider;
  if (preset.login) {
    if (!options.loginsDir) throw new ProviderError(name, `model ${spec} needs a login, and this process has no logins directory`, undefined, { retryable: false });
    if (!readLogin(options.loginsDir, preset.login)) throw new ProviderError(name, `not logged in; model ${spec} needs \`recur login ${preset.login}\``, undefined, { retryable: false });
    const provider = createLoginProvider(LOGIN_FLOWS[preset.login], {
      name, dir: options.loginsDir, env, baseUrl: preset.baseUrl, baseUrlOverride: env[preset.baseUrlEnv] || undefined,
      wire: (auth) => wireProvider(name, preset, env, { ...options, ...auth, keyIsAlt: false }),
    });
    return bind(provider, parsed.model);
  }
  const ownKey = (preset.keyEnv && env[preset.keyEnv]) || undefined;
  const altKey = (preset.altKeyEnv && env[preset.altKeyEnv]) || undefined;
  const apiKey = ownKey ?? altKey;
  if (preset.keyRequired && !apiKey) {
    const names = preset.altKeyEnv ? `${preset.keyEnv} (or ${preset.altKeyEnv})` : preset.keyEnv;
    throw new ProviderError(name, `${names} is not set; model ${spec} needs it`, undefined, { retryable: false });
  }
  const baseUrl = env[preset.baseUrlEnv] || preset.baseUrl;
  if (!baseUrl) {
    throw new ProviderError(name, `${preset.baseUrlEnv} is not set; model ${spec} needs it`, undefined, { retryable: false });
  }
  const args = { ...options, baseUrl, apiKey, keyIsAlt: ownKey === undefined && altKey !== undefined };
  return bind(wireProvider(name, preset, env, args), parsed.model);
}

interface WireArgs extends ProviderOptions {
  baseUrl: string;
  apiKey?: string;
  /** Sent on every call: a login's bearer token and the headers its API wants (auth/login-provider.ts). */
  headers?: Record<string, string>;
  /** The key came from `altKeyEnv` (for azure: an Entra ID token, not a resource key). */
  keyIsAlt: boolean;
}

function wireProvider(name: ProviderName, preset: ProviderPreset, env: Env, { apiKey, keyIsAlt, ...args }: WireArgs): ModelProvider {
  const key = apiKey ?? '';
  switch (preset.wire) {
    case 'anthropic':
      return createAnthropicProvider({ ...args, apiKey: key });
    case 'gemini':
      return createGeminiProvider({ ...args, apiKey: key });
    case 'openai-responses':
      return createOpenAIResponsesProvider({ ...args, name, apiKey });
    case 'azure': {
      const { baseUrl: endpoint, ...rest } = args;
      const apiVersion = env.AZURE_OPENAI_API_VERSION || AZURE_OPENAI_DEFAULT_API_VERSION;
      return createAzureOpenAIProvider({ ...rest, endpoint, apiVersion, auth: keyIsAlt ? { adToken: key } : { apiKey: key } });
    }
    case 'bedrock':
      // Region and credentials are AWS's own variables; the base URL is derived from the region unless BEDROCK_BASE_URL names one.
      return createBedrockProvider({ ...args, ...bedrockSettings(env) });
    case 'openai':
      return createOpenAIProvider({ ...args, name, apiKey, maxTokensField: preset.maxTokensField });
  }
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
