import { parseConfig, type RecurConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { CommandContext } from '../command-context';
import { asInfrastructureExit } from './exit-codes';

/** `recur run`'s and `recur attach`'s CI flags, as the options table parseArgs takes. */
export const CI_OPTIONS = {
  ci: { type: 'boolean' },
  'no-ci': { type: 'boolean' },
  junit: { type: 'string' },
  summary: { type: 'string' },
} as const;

export const CI_USAGE = '[--ci|--no-ci] [--junit FILE] [--summary FILE]';

export interface CiOptions {
  /** CI exit codes (docs/ci.md) and the job summary. */
  enabled: boolean;
  junit: string | null;
  summary: string | null;
  /** Where the summary is appended too ($GITHUB_STEP_SUMMARY), in CI mode only. */
  stepSummary: string | null;
  /** Where the session's id is appended as a step output ($GITHUB_OUTPUT), in CI mode only. */
  stepOutput: string | null;
}

/**
 * Whether CI mode is on: `--no-ci` wins, then `--ci`, then `CI=true`. Decided from raw arguments
 * too, so a bad flag in a CI job exits 3 like every other reason the run could not happen; the
 * config is parsed without throwing for the same reason.
 */
export function ciEnabled(flags: { ci?: unknown; 'no-ci'?: unknown }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (flags['no-ci'] === true) return false;
  return flags.ci === true || parseConfig(env).config.ci.enabled;
}

export const ciRequestedIn = (argv: readonly string[]): boolean =>
  ciEnabled({ ci: argv.includes('--ci'), 'no-ci': argv.includes('--no-ci') });

export function ciOptions(flags: CommandContext['flags'], config: RecurConfig): CiOptions {
  const enabled = ciEnabled(flags);
  const file = (name: 'junit' | 'summary'): string | null => {
    const v = flags[name];
    if (v === undefined) return null;
    if (typeof v !== 'string' || v === '') throw new ExitError(2, `--${name} needs a file name`);
    return v;
  };
  return { enabled, junit: file('junit'), summary: file('summary'), stepSummary: enabled ? config.ci.stepSummary : null, stepOutput: enabled ? config.ci.stepOutput : null };
}

/** Runs a CI-aware command: in CI mode, whatever it throws leaves as exit 3 (asInfrastructureExit). */
export async function withCiExit(enabled: boolean, body: () => Promise<number>): Promise<number> {
  if (!enabled) return body();
  try {
    return await body();
  } catch (e) {
    throw asInfrastructureExit(e);
  }
}
