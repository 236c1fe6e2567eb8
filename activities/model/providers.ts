import type { LoginName } from './auth/login-store';

/**
 * Where each named provider lives and which environment variables configure it. Every entry
 * but `anthropic` speaks OpenAI Chat Completions; the presets differ only in URL and key, or in
 * the subscription login (`recur login`, docs/logins.md) that authenticates them instead.
 *
 * | provider   | default base URL                        | base URL env        | key env            |
 * |------------|-----------------------------------------|---------------------|--------------------|
 * | openai     | https://api.openai.com/v1               | OPENAI_BASE_URL     | OPENAI_API_KEY     |
 * | anthropic  | https://api.anthropic.com               | ANTHROPIC_BASE_URL  | ANTHROPIC_API_KEY  |
 * | vllm       | http://127.0.0.1:8000/v1                | VLLM_BASE_URL       | VLLM_API_KEY (opt) |
 * | ollama     | http://127.0.0.1:11434/v1               | OLLAMA_BASE_URL     | OLLAMA_API_KEY (opt) |
 * | lmstudio   | http://127.0.0.1:1234/v1                | LMSTUDIO_BASE_URL   | LMSTUDIO_API_KEY (opt) |
 * | groq       | https://api.groq.com/openai/v1          | GROQ_BASE_URL       | GROQ_API_KEY       |
 * | fireworks  | https://api.fireworks.ai/inference/v1   | FIREWORKS_BASE_URL  | FIREWORKS_API_KEY  |
 * | openrouter | https://openrouter.ai/api/v1            | OPENROUTER_BASE_URL | OPENROUTER_API_KEY |
 * | chatgpt    | https://chatgpt.com/backend-api/codex   | CHATGPT_BASE_URL    | `recur login chatgpt` |
 * | copilot    | https://api.githubcopilot.com (or the account's own) | COPILOT_BASE_URL | `recur login copilot` |
 */
export interface ProviderPreset {
  wire: 'openai' | 'anthropic';
  baseUrl: string;
  baseUrlEnv: string;
  /** Absent for a provider authenticated by a login or by credentials of its own kind. */
  keyEnv?: string;
  /** Local servers run without a key; the key is still sent when set. */
  keyRequired: boolean;
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Calls authenticate with this stored subscription login (activities/model/auth), refreshed as it expires. */
  login?: LoginName;
  /**
   * What `recur models` checks to say whether this provider can be called here; all must hold.
   * Absent: the login, and the key variable when `keyRequired`.
   */
  needs?: readonly Need[];
}

/**
 * One thing a provider needs, as data: `env` holds when any of the variables is set (non-empty);
 * `login` when `recur login <name>` stored a login its provider has not refused; `file` when the
 * path, relative to the Recur home, exists (a local model), with `hint` saying how to get it.
 */
export type Need = { env: readonly string[] } | { login: LoginName } | { file: string; hint: string };

/** A preset's needs, the default filled in. */
export function needsOf(preset: ProviderPreset): readonly Need[] {
  if (preset.needs) return preset.needs;
  return [...(preset.login ? [{ login: preset.login }] : []), ...(preset.keyRequired && preset.keyEnv ? [{ env: [preset.keyEnv] }] : [])];
}

const local = (port: number, name: string): ProviderPreset => ({
  wire: 'openai',
  baseUrl: `http://127.0.0.1:${port}/v1`,
  baseUrlEnv: `${name}_BASE_URL`,
  keyEnv: `${name}_API_KEY`,
  keyRequired: false,
});

const hosted = (baseUrl: string, name: string): ProviderPreset => ({
  wire: 'openai',
  baseUrl,
  baseUrlEnv: `${name}_BASE_URL`,
  keyEnv: `${name}_API_KEY`,
  keyRequired: true,
});

export const PROVIDERS = {
  openai: { ...hosted('https://api.openai.com/v1', 'OPENAI'), maxTokensField: 'max_completion_tokens' },
  anthropic: { ...hosted('https://api.anthropic.com', 'ANTHROPIC'), wire: 'anthropic' },
  vllm: local(8000, 'VLLM'),
  ollama: local(11434, 'OLLAMA'),
  lmstudio: local(1234, 'LMSTUDIO'),
  groq: hosted('https://api.groq.com/openai/v1', 'GROQ'),
  fireworks: hosted('https://api.fireworks.ai/inference/v1', 'FIREWORKS'),
  openrouter: hosted('https://openrouter.ai/api/v1', 'OPENROUTER'),
  // The Codex backend speaks the Responses API: this binds to the Chat Completions wire until that one is here.
  chatgpt: { wire: 'openai', baseUrl: 'https://chatgpt.com/backend-api/codex', baseUrlEnv: 'CHATGPT_BASE_URL', keyRequired: false, login: 'chatgpt' },
  copilot: { wire: 'openai', baseUrl: 'https://api.githubcopilot.com', baseUrlEnv: 'COPILOT_BASE_URL', keyRequired: false, login: 'copilot' },
} satisfies Record<string, ProviderPreset>;

export type ProviderName = keyof typeof PROVIDERS;
