import { RANGES, inRange, type RecurConfig } from '../../config';
import { ExitError } from '../../errors';
import type { StartSessionRequest } from '../daemon/api-types';
import type { CommandContext } from './command-context';

/** `recur run`'s backup model: it takes over once the run's model has been throttled this long (docs/providers.md). */
export const BACKUP_OPTIONS = {
  'backup-model': { type: 'string' },
  'backup-after-minutes': { type: 'string' },
} as const;

export const BACKUP_USAGE = '[--backup-model <provider/model> [--backup-after-minutes N]]';

/** The backup the flags (else RECUR_BACKUP_MODEL / RECUR_BACKUP_AFTER_MINUTES) name; none without a model. */
export function backupRequest(flags: CommandContext['flags'], config: RecurConfig, resolveSpec: (spec: string) => string): StartSessionRequest['backup'] {
  const model = typeof flags['backup-model'] === 'string' ? flags['backup-model'] : config.agent.backupModel;
  const after = flags['backup-after-minutes'];
  if (!model) {
    if (after !== undefined) throw new ExitError(2, '--backup-after-minutes needs a backup model: pass --backup-model <provider/model> or set RECUR_BACKUP_MODEL');
    return undefined;
  }
  const range = RANGES.backupAfterMinutes;
  const minutes = after === undefined ? config.agent.backupAfterMinutes : Number(after);
  if (!inRange(range, minutes)) throw new ExitError(2, `--backup-after-minutes must be an integer from ${range.min} to ${range.max}, got "${String(after)}"`);
  return { model: resolveSpec(model), afterMinutes: minutes };
}
