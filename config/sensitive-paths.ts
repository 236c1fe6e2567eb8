import { DEFAULT_SENSITIVE_PATHS, parseSensitiveRule } from '../activities/workspace/sensitive-paths';
import type { RecurConfig } from './schema';

/**
 * The defaults first, then the rules config.json or RECUR_SENSITIVE_PATHS add, each once: a
 * setting adds rules and never takes a default away, so no config hides a CI workflow's change.
 */
export const withDefaultRules = (rules: readonly string[]): string[] => [...new Set([...DEFAULT_SENSITIVE_PATHS, ...rules])];

export function sensitivePathErrors(config: RecurConfig): string[] {
  return config.worker.sensitivePaths.flatMap((text) => {
    const rule = parseSensitiveRule(text);
    return 'error' in rule ? [`RECUR_SENSITIVE_PATHS (config worker.sensitivePaths): ${rule.error}`] : [];
  });
}
