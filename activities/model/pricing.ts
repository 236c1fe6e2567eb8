import type { Usage } from './types';

/** USD per million tokens. */
export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Cache reads as a multiple of the input price (Anthropic 0.1; OpenAI 0.1 to 0.5); absent: priced as plain input. */
  cacheReadMultiplier?: number;
  /** Cache writes as a multiple of the input price (Anthropic 1.25, its 5-minute cache); absent: priced as plain input. */
  cacheWriteMultiplier?: number;
}

/** Keyed by `provider/model`, the model without any date suffix (and, for Bedrock, without region prefix and version). */
export type PriceTable = Record<string, Price>;

/** Anthropic's 5-minute ephemeral cache, on its own API and on Bedrock alike. */
const ANTHROPIC_CACHE = { cacheReadMultiplier: 0.1, cacheWriteMultiplier: 1.25 };
/** OpenAI discounts cached input by model generation and charges nothing extra to write it. */
const cachedAt = (cacheReadMultiplier: number) => ({ cacheReadMultiplier });

/**
 * Public list prices for standard (non-batch) tokens as of 2025-11, Bedrock's for on-demand use
 * in us-east-1; they change, so deployments that bill from this should pass their own table.
 * Models not listed cost 0.
 */
export const LIST_PRICES: PriceTable = {
  'openai/gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10, ...cachedAt(0.1) },
  'openai/gpt-5-mini': { inputPerMTok: 0.25, outputPerMTok: 2, ...cachedAt(0.1) },
  'openai/gpt-5-nano': { inputPerMTok: 0.05, outputPerMTok: 0.4, ...cachedAt(0.1) },
  'openai/gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8, ...cachedAt(0.25) },
  'openai/gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6, ...cachedAt(0.25) },
  'openai/gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10, ...cachedAt(0.5) },
  'openai/gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6, ...cachedAt(0.5) },
  'openai/o3': { inputPerMTok: 2, outputPerMTok: 8, ...cachedAt(0.25) },
  'openai/o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4, ...cachedAt(0.25) },
  'anthropic/claude-opus-4-5': { inputPerMTok: 5, outputPerMTok: 25, ...ANTHROPIC_CACHE },
  'anthropic/claude-opus-4-1': { inputPerMTok: 15, outputPerMTok: 75, ...ANTHROPIC_CACHE },
  'anthropic/claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15, ...ANTHROPIC_CACHE },
  'anthropic/claude-sonnet-4': { inputPerMTok: 3, outputPerMTok: 15, ...ANTHROPIC_CACHE },
  'anthropic/claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5, ...ANTHROPIC_CACHE },
  'anthropic/claude-3-5-haiku': { inputPerMTok: 0.8, outputPerMTok: 4, ...ANTHROPIC_CACHE },
  'bedrock/anthropic.claude-opus-4-5': { inputPerMTok: 5, outputPerMTok: 25, ...ANTHROPIC_CACHE },
  'bedrock/anthropic.claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15, ...ANTHROPIC_CACHE },
  'bedrock/anthropic.claude-sonnet-4': { inputPerMTok: 3, outputPerMTok: 15, ...ANTHROPIC_CACHE },
  'bedrock/anthropic.claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5, ...ANTHROPIC_CACHE },
  // Nova discounts cache reads by 75% and charges nothing extra to write.
  'bedrock/amazon.nova-pro': { inputPerMTok: 0.8, outputPerMTok: 3.2, cacheReadMultiplier: 0.25 },
  'bedrock/amazon.nova-lite': { inputPerMTok: 0.06, outputPerMTok: 0.24, cacheReadMultiplier: 0.25 },
  'bedrock/amazon.nova-micro': { inputPerMTok: 0.035, outputPerMTok: 0.14, cacheReadMultiplier: 0.25 },
  'groq/llama-3.3-70b-versatile': { inputPerMTok: 0.59, outputPerMTok: 0.79 },
  'groq/llama-3.1-8b-instant': { inputPerMTok: 0.05, outputPerMTok: 0.08 },
  // Gemini's Pro models cost more past 200k prompt tokens; these are the prices up to that.
  'gemini/gemini-3-pro-preview': { inputPerMTok: 2, outputPerMTok: 12, ...cachedAt(0.1) },
  'gemini/gemini-2.5-pro': { inputPerMTok: 1.25, outputPerMTok: 10, ...cachedAt(0.25) },
  'gemini/gemini-2.5-flash': { inputPerMTok: 0.3, outputPerMTok: 2.5, ...cachedAt(0.25) },
  'gemini/gemini-2.5-flash-lite': { inputPerMTok: 0.1, outputPerMTok: 0.4, ...cachedAt(0.25) },
  'gemini/gemini-2.0-flash': { inputPerMTok: 0.1, outputPerMTok: 0.4, ...cachedAt(0.25) },
};

/** Snapshot suffixes name the same priced model: `-2024-08-06`, `-20250514`, `-latest`. */
const SNAPSHOT_SUFFIX = /-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/** `us.anthropic.claude-sonnet-4-5-20250929-v1:0` → `anthropic.claude-sonnet-4-5-20250929`: a cross-region profile bills as its model. */
const BEDROCK_PROFILE = /^(?:us|us-gov|eu|apac|au|ca|jp|global)\./;
const BEDROCK_VERSION = /-v\d+(?::\d+)?$/;

export function priceOf(provider: string, model: string, table: PriceTable = LIST_PRICES): Price | undefined {
  const id = provider === 'bedrock' ? model.replace(BEDROCK_PROFILE, '').replace(BEDROCK_VERSION, '') : model;
  return table[`${provider}/${id}`] ?? table[`${provider}/${id.replace(SNAPSHOT_SUFFIX, '')}`];
}

/** Cache reads and writes are part of `inputTokens`; each is priced at its multiple of the input price. */
export function costUsd(provider: string, model: string, usage: Usage, table: PriceTable = LIST_PRICES): number {
  const price = priceOf(provider, model, table);
  if (!price) return 0;
  const read = usage.cacheReadTokens ?? 0;
  const write = usage.cacheWriteTokens ?? 0;
  const plain = Math.max(0, usage.inputTokens - read - write);
  const input = plain + read * (price.cacheReadMultiplier ?? 1) + write * (price.cacheWriteMultiplier ?? 1);
  return (input * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1e6;
}
