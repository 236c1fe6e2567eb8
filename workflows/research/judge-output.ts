/*
 * What a task's frozen judge prints (its verify.py --json, docs/research-task.md): one line of
 * snake_case JSON. Here, below services/, so that the CLI that prints it and the workflow that
 * checks it (judge-verdict.ts) read the same field names. Types only.
 */

/** research-loop §5.3's pairwise rule against the record (verify.py --against). */
export interface PairwiseOutput {
  previous_steps: number;
  previous_mean: number;
  previous_n: number;
  score: number;
  threshold: number;
  passed: boolean;
}

/** The scale-up stage (verify.py --scale-up): T* on the large problem against the baseline's. */
export interface ScaleUpOutput {
  /** null when no doubling up to the judge's cap cleared the bar on the large problem. */
  large_steps: number | null;
  baseline_large_steps: number;
  baseline_small_steps: number;
  ratio_large: number | null;
  ratio_small: number;
  passed: boolean;
}

/** What the frozen judge decides about a workspace as it stands. */
export interface JudgeOutput {
  accepted: boolean;
  clears_bar: boolean;
  /** A screen (n < 8) that clears its bar with legal levers; never true at n = 8. */
  promising: boolean;
  steps: number | null;
  /** null when the run diverged or was never run (a rejected harness or CONFIG). */
  mean: number | null;
  reason: string;
  n: number;
  seeds: number[];
  values: (number | null)[];
  bar: number;
  config_hash: string | null;
  frozen_hash: string | null;
  /** null without a record to judge against, or without a mean to compare. */
  pairwise: PairwiseOutput | null;
  /** null unless asked for and everything else passed. */
  scale_up: ScaleUpOutput | null;
  problem: string;
}
