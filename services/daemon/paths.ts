import { join } from 'node:path';
import type { RecurConfig } from '../../config';

/** Where the daemon and its clients meet: the token file, the worker's pid and log, saved cursors. */
export function daemonPaths(config: RecurConfig) {
  const run = join(config.home, 'run');
  return {
    token: join(run, 'daemon.token'),
    workerPid: join(run, 'worker.pid'),
    workerLog: join(config.home, 'logs', 'worker.log'),
    cursors: join(run, 'cursors'),
  };
}

export function daemonUrl(config: RecurConfig): string {
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.ports.daemon}`;
}
