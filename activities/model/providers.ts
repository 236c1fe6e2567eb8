/**
 * Where each named provider lives and which environment variables configure it. Every entry
 * but `anthropic` and `bedrock` speaks OpenAI Chat Completions; the presets differ only in URL and key.
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
 * | bedrock    | https://bedrock-runtime.<region>.amazonaws.com | BEDROCK_BASE_URL | AWS_BEARER_TOKEN_BEDROCK, or SigV4 from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY |
 */
export interface ProviderPreset {
  wire: 'openai' | 'anthropic' | 'bedrock';
  baseUrl: string;
  baseUrlEnv: string;
  keyEnv: string;
  /** Local servers run without a key; the key is still sent when set. */
  keyRequired: boolean;
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** What a user must set for it, in words (`recur models` shows it). */
  needs?: string;
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
  // Region and auth are read by bedrockSettings; the key here is the API-key option only.
  bedrock: {
    wire: 'bedrock',
    baseUrl: 'https://bedrock-runtime.<region>.amazonaws.com',
    baseUrlEnv: 'BEDROCK_BASE_URL',
    keyEnv: 'AWS_BEARER_TOKEN_BEDROCK',
    keyRequired: false,
    needs: 'AWS_REGION (or AWS_DEFAULT_REGION), and AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key) or AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN)',
  },
} satisfies Record<string, ProviderPreset>;

export type ProviderName = keyof typeof PROVIDERS;
