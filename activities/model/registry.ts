import { ProviderError } from '../../errors';
import { createAnthropicProvider } from './anthropic';
import { createLoginProvider, LOGIN_FLOWS, type CallAuth } from './auth/login-provider';
import { readLogin } from './auth/login-store';
import { createOpenAIProvider } from './openai';
import { PROVIDERS, type ProviderName, type ProviderPreset } from './providers';
import { createScriptedModel, loadScript } from './scripted';
import type { ProviderOptions } from './streaming-call';
import type { Model, ModelProvider } from './types';

export type ModelSpec = { provider: 'scripted'; path: string } | { provider: ProviderName; model: string };

export type Env = Record<string, string | undefined>;

const KNOWN = `${Object.keys(PROVIDERS).join(', ')} (as <provider>/<model>) and scripted:<file.json>`;

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
  if (!Object.hasOwn(PROVIDERS, provider)) throw specError(spec, `unknown provider "${provider}"; known: ${KNOWN}`);
  return { provider: provider as ProviderName, model: spec.slice(slash + 1) };
}

export interface ModelOptions extends ProviderOptions {
  /** Directories a `scripted:` file may be read from (config `agent.scriptedDirs`); none: every script is refused. */
  scriptedDirs?: readonly string[];
  /** Where `recur login` stores logins (the home's `logins/`); without it a login-backed model fails here. */
  loginsDir?: string;
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
  const preset: ProviderPreset = PROVIDERS[parsed.provider];
  const name = parsed.provider;
  const wire = (auth: CallAuth & { apiKey?: string }) =>
    preset.wire === 'anthropic'
      ? createAnthropicProvider({ ...options, baseUrl: auth.baseUrl, apiKey: auth.apiKey ?? '' })
      : createOpenAIProvider({ ...options, name, ...auth, maxTokensField: preset.maxTokensField });
  if (preset.login) {
    if (!options.loginsDir) throw new ProviderError(name, `model ${spec} needs a login, and this process has no logins directory`, undefined, { retryable: false });
    if (!readLogin(options.loginsDir, preset.login)) throw new ProviderError(name, `not logged in; model ${spec} needs \`recur login ${preset.login}\``, undefined, { retryable: false });
    const provider = createLoginProvider(LOGIN_FLOWS[preset.login], {
      name, dir: options.loginsDir, env, baseUrl: preset.baseUrl, baseUrlOverride: env[preset.baseUrlEnv] || undefined, wire,
    });
    return bind(provider, parsed.model);
  }
  const apiKey = (preset.keyEnv && env[preset.keyEnv]) || undefined;
  if (preset.keyRequired && !apiKey) {
    throw new ProviderError(name, `${preset.keyEnv} is not set; model ${spec} needs it`, undefined, { retryable: false });
  }
  const provider = wire({ baseUrl: env[preset.baseUrlEnv] || preset.baseUrl, headers: {}, apiKey });
  return bind(provider, parsed.model);
}

function bind(provider: ModelProvider, model: string): Model {
  return { provider: provider.name, model, complete: (call) => provider.complete({ ...call, model }) };
}

function specError(spec: string, problem: string): ProviderError {
  return new ProviderError('model spec', `"${spec}": ${problem}`, undefined, { retryable: false });
}
