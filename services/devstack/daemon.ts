import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configToEnv } from '../../config';
import type { HealthReply } from '../daemon/api-types';
import { daemonPaths, daemonUrl } from '../daemon/paths';
import { repoRoot } from '../home/repo-root';
import type { ServiceDef } from './service';

/**
 * The Recur daemon (API + supervised worker). Unlike the other services it gets the caller's
 * whole environment: its worker calls model providers and needs their keys. Kernels never see
 * it; they run under the Jupyter server, which gets a scrubbed one.
 */
export const daemonService: ServiceDef = {
  name: 'daemon',
  startTimeoutSeconds: 60,
  ports: (c) => [{ setting: 'RECUR_DAEMON_PORT', port: c.ports.daemon }],
  url: (c) => daemonUrl(c),
  prepare(config) {
    const main = join(repoRoot(), 'dist', 'services', 'daemon', 'main.js');
    return { cmd: process.execPath, args: [main], env: { ...process.env, ...configToEnv(config) }, cwd: repoRoot(), marker: main };
  },
  async healthy(config) {
    try {
      const token = readFileSync(daemonPaths(config).token, 'utf8').trim();
      const res = await fetch(`${daemonUrl(config)}/v1/health`, {
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(1000),
      });
      if (!res.ok) return false;
      const body = (await res.json()) as HealthReply;
      return body.ok === true && body.worker.alive;
    } catch {
      return false;
    }
  },
};
