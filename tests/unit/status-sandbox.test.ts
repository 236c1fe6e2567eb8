import { parseConfig } from '../../config';
import { formatSandbox } from '../../services/cli/commands/status';
import { sandboxRecord } from '../../services/sandbox';

describe('recur status: the kernel sandbox line', () => {
  const record = (env: Record<string, string>) => sandboxRecord(parseConfig({ RECUR_HOME: '/tmp/recur-status', ...env }).config.sandbox);

  test('on, with its limits and network policy', () => {
    expect(formatSandbox(record({ RECUR_SANDBOX_MEMORY_MIB: '2048', RECUR_SANDBOX_NET: 'allow:pypi.org' }))).toBe(
      'sandbox   on        bubblewrap per kernel: memory 2048 MiB, 1024 processes, 4096 open files, files up to 16384 MiB, network allow:pypi.org');
  });

  test('off, loudly: agents run uncontained', () => {
    expect(formatSandbox(record({ RECUR_SANDBOX: 'off' }))).toMatch(/^sandbox {3}OFF .*uncontained \(RECUR_SANDBOX=off\)/);
  });
});
