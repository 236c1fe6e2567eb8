import type { ScaleUpCheck } from '../../schemas/generated/events';
import type { JudgeOutput, PairwiseOutput, ScaleUpOutput } from './judge-output';

/** The judge's output (judge-output.ts) as far as the host relies on it, checked, in the log's camelCase. */
export interface JudgeVerdict {
  accepted: boolean;
  clearsBar: boolean;
  steps: number | null;
  mean: number | null;
  reason: string;
  n: number;
  seeds: number[];
  values: (number | null)[];
  configHash: string | null;
  frozenHash: string | null;
  promising: boolean;
  pairwiseScore: number | null;
  scaleUp: ScaleUpCheck | null;
}

/** A JSON object read for T's fields, none of them checked yet: a misspelt field name does not compile. */
type Unchecked<T> = { [K in keyof T]?: unknown };
const isObject = <T>(v: unknown): v is Unchecked<T> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const int = (v: unknown): v is number => Number.isSafeInteger(v);
const orNull = <T>(v: unknown, ok: (x: unknown) => x is T): T | null | undefined => (v === null ? null : ok(v) ? v : undefined);
const str = (v: unknown): v is string => typeof v === 'string';

function scaleUp(v: unknown): ScaleUpCheck | null | undefined {
  if (v === null || v === undefined) return null;
  if (!isObject<ScaleUpOutput>(v)) return undefined;
  const largeSteps = orNull(v.large_steps, int);
  const ratioLarge = orNull(v.ratio_large, num);
  if (largeSteps === undefined || ratioLarge === undefined || !int(v.baseline_large_steps) || !int(v.baseline_small_steps) || !num(v.ratio_small) || typeof v.passed !== 'boolean') return undefined;
  return { largeSteps, baselineLargeSteps: v.baseline_large_steps, baselineSmallSteps: v.baseline_small_steps, ratioLarge, ratioSmall: v.ratio_small, passed: v.passed };
}

/**
 * The verdict on the last line of a judge run's output, or null when there is none or it is not
 * one: the host then counts nothing of the run. Pure; checked field by field, since whatever
 * passes here is logged as the ledger's numbers.
 */
export function parseVerdict(output: string): JudgeVerdict | null {
  const line = output.trimEnd().split('\n').at(-1) ?? '';
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObject<JudgeOutput>(v)) return null;
  const steps = orNull(v.steps, int);
  const mean = orNull(v.mean, num);
  const configHash = orNull(v.config_hash, str);
  const frozenHash = orNull(v.frozen_hash, str);
  const seeds = Array.isArray(v.seeds) && v.seeds.every(int) ? v.seeds : undefined;
  const values = Array.isArray(v.values) && v.values.every((x) => x === null || num(x)) ? (v.values as (number | null)[]) : undefined;
  const pairwise = v.pairwise === null || v.pairwise === undefined ? null : isObject<PairwiseOutput>(v.pairwise) && num(v.pairwise.score) ? v.pairwise.score : undefined;
  const up = scaleUp(v.scale_up);
  if (typeof v.accepted !== 'boolean' || typeof v.clears_bar !== 'boolean' || !str(v.reason) || !int(v.n)) return null;
  if (steps === undefined || mean === undefined || configHash === undefined || frozenHash === undefined || !seeds || !values || seeds.length !== values.length) return null;
  if (pairwise === undefined || up === undefined) return null;
  return {
    accepted: v.accepted, clearsBar: v.clears_bar, steps, mean, reason: v.reason, n: v.n, seeds, values, configHash, frozenHash,
    promising: v.promising === true, pairwiseScore: pairwise, scaleUp: up,
  };
}
