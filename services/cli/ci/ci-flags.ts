import { parseConfig, type RecurConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { CommandContext } from '../command-context';
import { asInfrastructureExit } from './exit-codes';
import type { BranchRequest } from './review-branch';

/** `recur run`'s and `recur attach`'s CI flags, as the options table parseArgs takes. */
export const CI_OPTIONS = {
  ci: { type: 'boolean' },
  'no-ci': { type: 'boolean' },
  junit: { type: 'string' },
  summary: { type: 'string' },
  branch: { type: 'string' },
  'branch-always': { type: 'boolean' },
  'branch-author': { type: 'string' },
  push: { type: 'string' },
} as const;

export const CI_USAGE = '[--ci|--no-ci] [--junit FILE] [--summary FILE] [--branch NAME [--push REMOTE] [--branch-always] [--branch-author "Name <email>"]]';

export interface CiOptions {
  /** CI exit codes (docs/ci.md) and the job summary. */
  enabled: boolean;
  junit: string | null;
  summary: string | null;
  /** Where the summary is appended too ($GITHUB_STEP_SUMMARY), in CI mode only. */
  stepSummary: string | null;
  /** Where the session's id is appended as a step output ($GITHUB_OUTPUT), in CI mode only. */
  stepOutput: string | null;
  /** The reviewer's branch to commit the net change on (review-branch.ts); null: none. */
  branch: BranchRequest | null;
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
  const text = (name: 'branch' | 'push' | 'branch-author'): string | null => {
    const v = flags[name];
    if (v === undefined) return null;
    if (typeof v !== 'string' || v.trim() === '' || v.startsWith('-')) throw new ExitError(2, `--${name} needs a value`);
    return v;
  };
  const name = text('branch');
  const push = text('push');
  const author = text('branch-author');
  if (name === null && (push !== null || author !== null || flags['branch-always'] === true)) {
    throw new ExitError(2, '--push, --branch-always and --branch-author go with --branch NAME');
  }
  if (name !== null && !enabled) throw new ExitError(2, '--branch works in CI mode (--ci, or CI=true), where the run ends with its answer');
  return {
    enabled, junit: file('junit'), summary: file('summary'), stepSummary: enabled ? config.ci.stepSummary : null, stepOutput: enabled ? config.ci.stepOutput : null,
    branch: name === null ? null : { name, push, always: flags['branch-always'] === true, author },
  };
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
