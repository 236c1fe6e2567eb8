import type { LoginName } from './auth/login-store';

/**
 * Where each named provider lives and which environment variables configure it. The `openai`
 * wire (OpenAI Chat Completions) is shared by most entries, which differ only in URL and key, or
 * in the subscription login (`recur login`, docs/logins.md) that authenticates them instead;
 * `anthropic`, `gemini`, `azure`, `openai-responses` and `bedrock` each speak their own.
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
 * | gemini     | https://generativelanguage.googleapis.com | GEMINI_BASE_URL   | GEMINI_API_KEY, else GOOGLE_API_KEY |
 * | azure      | none: AZURE_OPENAI_ENDPOINT is required   | AZURE_OPENAI_ENDPOINT | AZURE_OPENAI_API_KEY, else AZURE_OPENAI_AD_TOKEN (Entra ID bearer) |
 * | openai-responses | https://api.openai.com/v1           | OPENAI_BASE_URL     | OPENAI_API_KEY     |
 * | bedrock    | https://bedrock-runtime.<region>.amazonaws.com | BEDROCK_BASE_URL | AWS_BEARER_TOKEN_BEDROCK, or SigV4 from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY |
 *
 * `azure` also reads AZURE_OPENAI_API_VERSION (default AZURE_OPENAI_DEFAULT_API_VERSION).
 */
export interface ProviderPreset {
  wire: 'openai' | 'anthropic' | 'gemini' | 'azure' | 'openai-responses' | 'bedrock';
  /** Empty: there is no default, so `baseUrlEnv` must be set. */
  baseUrl: string;
  baseUrlEnv: string;
  /** Absent for a provider authenticated by a login or by credentials of its own kind. */
  keyEnv?: string;
  /** Read when `keyEnv` is unset: another name for the key, or (azure) another kind of credential. */
  altKeyEnv?: string;
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
 * path, relative to the Recur home unless absolute, exists (a local model), with `hint` saying how to get it.
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
  chatgpt: { wire: 'openai-responses', baseUrl: 'https://chatgpt.com/backend-api/codex', baseUrlEnv: 'CHATGPT_BASE_URL', keyRequired: false, login: 'chatgpt' },
  copilot: { wire: 'openai', baseUrl: 'https://api.githubcopilot.com', baseUrlEnv: 'COPILOT_BASE_URL', keyRequired: false, login: 'copilot' },
  gemini: {
    wire: 'gemini',
    baseUrl: 'https://generativelanguage.googleapis.com',
    baseUrlEnv: 'GEMINI_BASE_URL',
    keyEnv: 'GEMINI_API_KEY',
    altKeyEnv: 'GOOGLE_API_KEY',
    keyRequired: true,
    needs: [{ env: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] }],
  },
  azure: {
    wire: 'azure',
    baseUrl: '',
    baseUrlEnv: 'AZURE_OPENAI_ENDPOINT',
    keyEnv: 'AZURE_OPENAI_API_KEY',
    altKeyEnv: 'AZURE_OPENAI_AD_TOKEN',
    keyRequired: true,
    needs: [{ env: ['AZURE_OPENAI_ENDPOINT'] }, { env: ['AZURE_OPENAI_API_KEY', 'AZURE_OPENAI_AD_TOKEN'] }],
  },
  'openai-responses': {
    wire: 'openai-responses',
    baseUrl: 'https://api.openai.com/v1',
    baseUrlEnv: 'OPENAI_BASE_URL',
    keyEnv: 'OPENAI_API_KEY',
    keyRequired: true,
  },
  // Region and auth are read by bedrockSettings; the key here is the API-key option only.
  bedrock: {
    wire: 'bedrock',
    baseUrl: 'https://bedrock-runtime.<region>.amazonaws.com',
    baseUrlEnv: 'BEDROCK_BASE_URL',
    keyEnv: 'AWS_BEARER_TOKEN_BEDROCK',
    keyRequired: false,
    needs: [{ env: ['AWS_REGION', 'AWS_DEFAULT_REGION'] }, { env: ['AWS_BEARER_TOKEN_BEDROCK', 'AWS_ACCESS_KEY_ID'] }],
  },
} satisfies Record<string, ProviderPreset>;

export type ProviderName = keyof typeof PROVIDERS;
