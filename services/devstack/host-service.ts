import { join } from 'node:path';
import { configToEnv } from '../../config';
import { hostDir } from '../../config/home-paths';
import { liveProcess } from '../home/process';
import { repoRoot } from '../home/repo-root';
import { hostWorkerPid } from '../host/paths';
import type { ServiceDef } from './service';

/**
 * A host's supervisor (services/host/main.ts), which keeps its worker running as the daemon keeps
 * `local`'s. It gets the caller's whole environment, as the daemon does: its worker calls model
 * providers. Its argument is the host's directory, so its command line tells one host's from another's.
 */
export const hostService: ServiceDef = {
  name: 'host',
  startTimeoutSeconds: 60,
  ports: () => [],
  url: (c) => `temporal://${c.temporal.namespace}/${c.temporal.taskQueue}@${c.hostId}`,
  prepare(config) {
    const main = join(repoRoot(), 'dist', 'services', 'host', 'main.js');
    return { cmd: process.execPath, args: [main, hostDir(config)], env: { ...process.env, ...configToEnv(config) }, cwd: repoRoot(), marker: hostDir(config) };
  },
  healthy: async (config) => liveProcess(hostWorkerPid(config)) !== null,
};
