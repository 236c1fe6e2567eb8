import { parseConfig } from '../../config';
import { formatSandbox, kernelIdentity } from '../../services/cli/commands/status';
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

  test('who kernels run as: root gives each its own uid and hands files back; anyone else needs no hand-back', () => {
    expect(kernelIdentity(0, 'root')).toMatchObject({ as: 'own-uid', uid: 0, line: expect.stringContaining('handed back to its owner') });
    expect(kernelIdentity(1001, 'ci')).toMatchObject({ as: 'invoking-user', uid: 1001, line: expect.stringMatching(/^kernels {3}as ci .*uid 1001: no ACL walk or hand-back is needed/) });
  });
});
