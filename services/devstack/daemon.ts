import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecurConfig } from '../../config';
import type { HealthReply } from '../daemon/api-types';
import { daemonPaths, daemonUrl } from '../daemon/paths';
import { repoRoot } from './repo-root';
import type { ServiceDef } from './service';

/** The config as the environment variables loadConfig reads, so the daemon and its worker see what `up` saw. */
export function configEnv(config: RecurConfig): Record<string, string> {
  const { ports, kafka, temporal, agent } = config;
  return {
    RECUR_HOME: config.home,
    RECUR_TOOLS_DIR: config.toolsDir,
    RECUR_HOST: config.host,
    RECUR_KAFKA_PORT: String(ports.kafka),
    RECUR_KAFKA_CONTROLLER_PORT: String(ports.kafkaController),
    RECUR_TEMPORAL_PORT: String(ports.temporal),
    RECUR_TEMPORAL_HTTP_PORT: String(ports.temporalHttp),
    RECUR_TEMPORAL_METRICS_PORT: String(ports.temporalMetrics),
    RECUR_JUPYTER_PORT: String(ports.jupyter),
    RECUR_DAEMON_PORT: String(ports.daemon),
    RECUR_KAFKA_TOPIC: kafka.topic,
    RECUR_KAFKA_HEAP: kafka.heap,
    RECUR_TEMPORAL_NAMESPACE: temporal.namespace,
    RECUR_TASK_QUEUE: temporal.taskQueue,
    RECUR_CELL_TIMEOUT_SECONDS: String(agent.cellTimeoutSeconds),
    RECUR_MAX_DEPTH: String(agent.maxDepth),
    RECUR_MAX_TURNS: String(agent.maxTurns),
    RECUR_IDLE_UNLOAD_SECONDS: String(agent.idleUnloadSeconds),
    RECUR_TURNS_PER_RUN: String(agent.turnsPerRun),
    RECUR_SNAPSHOT_EVERY_CELLS: String(agent.snapshotEveryCells),
    ...(agent.model !== null && { RECUR_MODEL: agent.model }),
    RECUR_PYTHON: config.python,
    RECUR_JAVA: config.java,
  };
}

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
    return { cmd: process.execPath, args: [main], env: { ...process.env, ...configEnv(config) }, cwd: repoRoot(), marker: main };
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
