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

export async function status(ctx: CommandContext): Promise<number> {
  const config = loadConfig();
  const services = await stackStatus(config);
  const sandbox = sandboxRecord(config.sandbox);
  if (ctx.flags.json) ctx.out(JSON.stringify({ services, sandbox }));
  else for (const line of [...formatStatus(services), formatSandbox(sandbox)]) ctx.out(line);
  return services.every((s) => s.healthy) ? 0 : 1;
}
