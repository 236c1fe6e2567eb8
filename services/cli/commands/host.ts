import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import { startHost, stopHost } from '../../devstack';
import type { CommandContext } from '../command-context';
import { formatStatus } from './status';

const USAGE = 'usage: recur host start --id ID [--jupyter-port PORT] [--json] | recur host stop --id ID';

/**
 * `recur host`: another host (a supervised worker and its own Jupyter server) for this cluster
 * (docs/hosts.md). On this machine it lives under the home's `hosts/<id>/`, on its own Jupyter
 * port; on another machine the same command joins the Kafka, Temporal and blob store it is given.
 */
export async function host(ctx: CommandContext): Promise<number> {
  const [sub, ...extra] = ctx.args;
  const id = ctx.flags.id;
  if ((sub !== 'start' && sub !== 'stop') || extra.length > 0 || typeof id !== 'string') throw new ExitError(2, USAGE);
  // The same check the host's own processes make when they read RECUR_HOST_ID.
  const config = loadConfig({ ...process.env, RECUR_HOST_ID: id });
  if (sub === 'stop') {
    if (!(await stopHost(config, id, ctx.out))) throw new ExitError(1, `no host ${id} was started from this home`);
    return 0;
  }
  const port = ctx.flags['jupyter-port'];
  const jupyterPort = typeof port === 'string' ? Number(port) : undefined;
  if (jupyterPort !== undefined && !(Number.isInteger(jupyterPort) && jupyterPort >= 1 && jupyterPort <= 65535)) {
    throw new ExitError(2, `--jupyter-port: expected a port 1-65535, got "${port}"`);
  }
  const services = await startHost(config, id, { jupyterPort }, ctx.flags.json ? () => undefined : ctx.out);
  if (ctx.flags.json) ctx.out(JSON.stringify({ services }));
  else for (const line of formatStatus(services)) ctx.out(line);
  return services.every((s) => s.healthy) ? 0 : 1;
}
