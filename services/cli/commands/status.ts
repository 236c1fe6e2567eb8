import { userInfo } from 'node:os';
import { loadConfig } from '../../../config';
import { status as stackStatus, type ServiceStatus } from '../../devstack';
import type { SandboxPolicy } from '../../../schemas/generated/events';
import { sandboxRecord } from '../../sandbox';
import type { CommandContext } from '../command-context';
import { DEFAULT_HOST_ID } from '../../../workflows/hosts/host-queue';

export function formatStatus(services: ServiceStatus[]): string[] {
  return services.map((s) =>
    `${(s.host === DEFAULT_HOST_ID ? s.name : `${s.name}@${s.host}`).padEnd(9)} ${(s.healthy ? 'healthy' : s.pid ? 'unhealthy' : 'stopped').padEnd(9)} ${s.url}${s.pid ? ` (pid ${s.pid})` : ''}`);
}

/** The kernel sandbox in force, loud when it is off: every session then runs its agent uncontained. */
export function formatSandbox(s: SandboxPolicy): string {
  if (s.mode === 'off') return 'sandbox   OFF       kernels run uncontained (RECUR_SANDBOX=off): an agent can reach the home, the services and other kernels';
  const mib = (n: number) => `${n / 2 ** 20} MiB`;
  return `sandbox   on        bubblewrap per kernel: memory ${mib(s.memoryBytes)}, ${s.processes} processes, ${s.openFiles} open files, files up to ${mib(s.fileBytes)}, network ${s.net}`;
}

/**
 * Who the kernels run as. Only root can give each kernel a uid of its own, and then the workspace
 * is shared through an ACL and handed back when a kernel stops; anyone else's kernels run as
 * themselves in a user namespace, where there is nothing to hand back.
 */
export function kernelIdentity(uid: number, user: string): { as: 'own-uid' | 'invoking-user'; uid: number; line: string } {
  if (uid === 0) return { as: 'own-uid', uid, line: 'kernels   own uid  each kernel its own uid, the workspace shared through a POSIX ACL and handed back to its owner when the kernel stops' };
  return { as: 'invoking-user', uid, line: `kernels   as ${user}  in a user namespace as uid ${uid}: no ACL walk or hand-back is needed, what a kernel writes is already ${user}'s` };
}

export async function status(ctx: CommandContext): Promise<number> {
  const config = loadConfig();
  const services = await stackStatus(config);
  const sandbox = sandboxRecord(config.sandbox);
  const { line, ...kernels } = kernelIdentity(process.getuid?.() ?? 0, userInfo().username);
  if (ctx.flags.json) ctx.out(JSON.stringify({ services, sandbox, ...(sandbox.mode === 'on' ? { kernels } : {}) }));
  else for (const l of [...formatStatus(services), formatSandbox(sandbox), ...(sandbox.mode === 'on' ? [line] : [])]) ctx.out(l);
  return services.every((s) => s.healthy) ? 0 : 1;
}
