import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { temporalAddress } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { baseEnv, type ServiceDef } from './service';

/** The Temporal CLI's dev server: one process, SQLite under the Recur home, no UI, no phoning home. */
export const temporalService: ServiceDef = {
  name: 'temporal',
  startTimeoutSeconds: 60,
  ports: (c) => [
    { setting: 'RECUR_TEMPORAL_PORT', port: c.ports.temporal },
    { setting: 'RECUR_TEMPORAL_HTTP_PORT', port: c.ports.temporalHttp },
    { setting: 'RECUR_TEMPORAL_METRICS_PORT', port: c.ports.temporalMetrics },
  ],
  url: (c) => `grpc://${temporalAddress(c)}`,
  prepare(config) {
    const p = stackPaths(config);
    mkdirSync(dirname(p.temporalDb), { recursive: true });
    return {
      cmd: p.temporalBin,
      args: [
        'server', 'start-dev', '--headless',
        '--ip', config.host,
        '--port', String(config.ports.temporal),
        '--http-port', String(config.ports.temporalHttp),
        '--metrics-port', String(config.ports.temporalMetrics),
        '--db-filename', p.temporalDb,
        '--namespace', config.temporal.namespace,
        '--log-level', 'warn',
        '--dynamic-config-value', 'frontend.enableServerVersionCheck=false',
      ],
      env: baseEnv({ TEMPORAL_VERSION_CHECK_DISABLED: '1' }),
      marker: p.temporalDb,
    };
  },
  async healthy(config) {
    let conn: Connection | undefined;
    try {
      conn = await Connection.connect({ address: temporalAddress(config), connectTimeout: 1000 });
      await conn.workflowService.describeNamespace({ namespace: config.temporal.namespace });
      return true;
    } catch {
      return false;
    } finally {
      await conn?.close().catch(() => undefined);
    }
  },
};
