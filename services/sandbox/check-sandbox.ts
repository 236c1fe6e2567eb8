import { spawnSync } from 'node:child_process';
import type { RecurConfig } from '../../config';
import { StackError } from '../../errors';

/**
 * `recur up` refuses to start kernels it cannot contain: this creates the namespaces a kernel's
 * sandbox needs (kernel/recur_jupyter/sandbox.py) and runs `true` inside them.
 */
export function checkSandbox(config: RecurConfig): void {
  if (config.sandbox.mode === 'off') return;
  const userns = process.getuid?.() === 0 ? [] : ['--unshare-user'];
  const probe = spawnSync('bwrap', [
    '--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net', ...userns,
    '--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64',
    '--proc', '/proc', '--dev', '/dev', 'true',
  ], { encoding: 'utf8', timeout: 10_000, env: process.env });
  if ((probe.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    throw new StackError('sandbox', 'bubblewrap (bwrap) is not installed, and every kernel runs in its sandbox',
      'apt-get install bubblewrap (recur setup does it when run as root), or set RECUR_SANDBOX=off to run kernels uncontained');
  }
  // Run as root, a kernel has a uid of its own and reaches its workspace through an ACL (docs/workspace.md).
  if (process.getuid?.() === 0 && (spawnSync('setfacl', ['--version']).error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    throw new StackError('sandbox', 'setfacl is not installed, and a kernel run as root reaches its workspace through an ACL',
      'apt-get install acl (recur setup does it when run as root), or set RECUR_SANDBOX=off to run kernels uncontained');
  }
  if (probe.status !== 0) {
    const why = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().split('\n')[0];
    throw new StackError('sandbox', `this host cannot create a kernel sandbox: ${why}`,
      'allow user namespaces (sysctl kernel.unprivileged_userns_clone=1, or run as root), or set RECUR_SANDBOX=off to run kernels uncontained');
  }
}
