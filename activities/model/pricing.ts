import type { Usage } from './types';

/** USD per million tokens. */
export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** Keyed by `provider/model`, the model without any date suffix. */
export type PriceTable = Record<string, Price>;

/**
 * Public list prices for standard (non-batch, uncached) tokens as of 2025-11; they change, so
 * deployments that bill from this should pass their own table. Models not listed cost 0.
 */
export const LIST_PRICES: PriceTable = {
  'openai/gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'openai/gpt-5-mini': { inputPerMTok: 0.25, outputPerMTok: 2 },
  'openai/gpt-5-nano': { inputPerMTok: 0.05, outputPerMTok: 0.4 },
  'openai/gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
  'openai/gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'openai/gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  'openai/gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  'openai/o3': { inputPerMTok: 2, outputPerMTok: 8 },
  'openai/o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
  'anthropic/claude-opus-4-5': { inputPerMTok: 5, outputPerMTok: 25 },
  'anthropic/claude-opus-4-1': { inputPerMTok: 15, outputPerMTok: 75 },
  'anthropic/claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15 },
  'anthropic/claude-sonnet-4': { inputPerMTok: 3, outputPerMTok: 15 },
  'anthropic/claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5 },
  'anthropic/claude-3-5-haiku': { inputPerMTok: 0.8, outputPerMTok: 4 },
  'groq/llama-3.3-70b-versatile': { inputPerMTok: 0.59, outputPerMTok: 0.79 },
  'groq/llama-3.1-8b-instant': { inputPerMTok: 0.05, outputPerMTok: 0.08 },
  // Gemini's Pro models cost more past 200k prompt tokens; these are the prices up to that.
  'gemini/gemini-3-pro-preview': { inputPerMTok: 2, outputPerMTok: 12 },
  'gemini/gemini-2.5-pro': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'gemini/gemini-2.5-flash': { inputPerMTok: 0.3, outputPerMTok: 2.5 },
  'gemini/gemini-2.5-flash-lite': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'gemini/gemini-2.0-flash': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
};

/** Snapshot suffixes name the same priced model: `-2024-08-06`, `-20250514`, `-latest`. */
const SNAPSHOT_SUFFIX = /-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

export function priceOf(provider: string, model: string, table: PriceTable = LIST_PRICES): Price | undefined {
  return table[`${provider}/${model}`] ?? table[`${provider}/${model.replace(SNAPSHOT_SUFFIX, '')}`];
}

export function costUsd(provider: string, model: string, usage: Usage, table: PriceTable = LIST_PRICES): number {
  const price = priceOf(provider, model, table);
  if (!price) return 0;
  return (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1e6;
}
