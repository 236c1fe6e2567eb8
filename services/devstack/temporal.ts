import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { temporalAddress } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { baseEnv, type ServiceDef } from './service';

/**
 * A write-ahead log synced at every commit: as durable as SQLite's default rollback journal (a
 * committed transaction survives a power loss), with one fsync a commit instead of several. Every
 * Temporal request that changes a workflow is such a commit (docs/performance.md).
 */
const SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=full'];

/**
 * Dynamic config for latency on a one-shard server; both defaults are sized for clusters of
 * hundreds of shards (docs/performance.md).
 * - The history service reads each shard's transfer queue (every workflow and activity task on its
 *   way to matching) and timer queue at most 20 times a second. Once the reader's burst was spent,
 *   every task waited up to 50 ms for its read: a bare workflow's two activities took 150 ms a
 *   round instead of 34. Reads are made when tasks are added, so a higher cap costs nothing idle.
 * - The timer queue fires no timer earlier than now + its max time shift (1 s): a retry 1 ms
 *   away, as when a restarted worker ends a dead one's attempts, waited up to a second.
 */
const DYNAMIC_CONFIG = [
  'history.transferProcessorMaxPollRPS=1000',
  'history.timerProcessorMaxPollRPS=1000',
  'history.timerProcessorMaxTimeShift="10ms"',
];

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
        ...SQLITE_PRAGMAS.flatMap((v) => ['--sqlite-pragma', v]),
        '--namespace', config.temporal.namespace,
        '--log-level', 'warn',
        '--dynamic-config-value', 'frontend.enableServerVersionCheck=false',
        ...DYNAMIC_CONFIG.flatMap((v) => ['--dynamic-config-value', v]),
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
