import { loadConfig } from '../../../config';
import { status as stackStatus, type ServiceStatus } from '../../devstack';
import type { CommandContext } from '../cli';

export function formatStatus(services: ServiceStatus[]): string[] {
  return services.map((s) =>
    `${s.name.padEnd(9)} ${(s.healthy ? 'healthy' : s.pid ? 'unhealthy' : 'stopped').padEnd(9)} ${s.url}${s.pid ? ` (pid ${s.pid})` : ''}`);
}

export async function status(ctx: CommandContext): Promise<number> {
  const services = await stackStatus(loadConfig());
  if (ctx.flags.json) ctx.out(JSON.stringify({ services }));
  else for (const line of formatStatus(services)) ctx.out(line);
  return services.every((s) => s.healthy) ? 0 : 1;
}
