import type { RecurConfig } from '../config';
import type { BenchResult } from './report';

/** What every benchmark gets from the runner. */
export interface BenchContext {
  /** The bench stack's config (its own home and ports). */
  config: RecurConfig;
  /** Small N: a check that every benchmark still runs, not a measurement to quote. */
  quick: boolean;
  log(line: string): void;
  /** Writes a PNG into the report directory; returns its file name there. */
  plot(name: string, png: Buffer): string;
}

export interface Benchmark {
  /** What `--only` selects. */
  name: string;
  run(ctx: BenchContext): Promise<BenchResult[]>;
}

/** `n` in a full run, `quick` with --quick. */
export const size = (ctx: Pick<BenchContext, 'quick'>, n: number, quick: number) => (ctx.quick ? quick : n);
