import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig, type RecurConfig } from '../config';
import { ConfigError } from '../errors';
import { repoRoot } from '../services/home/repo-root';
import { down, up } from '../services/devstack';

/**
 * Each port of the bench stack's block, before RECUR_BENCH_PORT_OFFSET shifts it. All below
 * Linux's ephemeral range (32768 up): a port in it can be any client's source port for a minute
 * after that client closed (TIME_WAIT), and the servers cannot bind it then.
 */
const BENCH_PORTS = {
  RECUR_KAFKA_PORT: 24192,
  RECUR_KAFKA_CONTROLLER_PORT: 24193,
  RECUR_TEMPORAL_PORT: 22233,
  RECUR_TEMPORAL_HTTP_PORT: 22243,
  RECUR_TEMPORAL_METRICS_PORT: 22253,
  RECUR_JUPYTER_PORT: 23988,
  RECUR_DAEMON_PORT: 22300,
  RECUR_BRIDGE_PORT: 22310,
};
/** Where Linux's default ephemeral port range starts. */
const EPHEMERAL_FROM = 32768;

/** RECUR_BENCH_PORT_OFFSET: an integer (default 0) added to every port of the block, so two checkouts can bench at once. */
export function benchPortOffset(base: NodeJS.ProcessEnv = process.env): number {
  const raw = base.RECUR_BENCH_PORT_OFFSET?.trim() ?? '';
  if (raw === '') return 0;
  const offset = Number(raw);
  const ports = Object.values(BENCH_PORTS);
  if (!Number.isInteger(offset) || Math.min(...ports) + offset < 1024 || Math.max(...ports) + offset >= EPHEMERAL_FROM) {
    throw new ConfigError([`RECUR_BENCH_PORT_OFFSET must be an integer that keeps the bench ports within 1024..${EPHEMERAL_FROM - 1}, below the ephemeral range, got ${JSON.stringify(raw)}`]);
  }
  return offset;
}

/**
 * The benchmarks' own stack: its own home (wiped each run) and a port block of its own, so a
 * bench never touches the developer's stack (19xxx/17xxx) or the integration tier's (29xxx/27xxx).
 * Tools (venv, Kafka jars) are shared with the default home.
 */
export function benchEnv(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const offset = benchPortOffset(base);
  const ports = Object.fromEntries(Object.entries(BENCH_PORTS).map(([k, port]) => [k, String(port + offset)]));
  return {
    RECUR_HOME: join(repoRoot(), '.recur', 'bench-home'),
    RECUR_TOOLS_DIR: parseConfig(base).config.toolsDir,
    ...ports,
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
  };
}

export function benchConfig(base: NodeJS.ProcessEnv = process.env): RecurConfig {
  const { config, errors } = parseConfig({ ...base, ...benchEnv(base) });
  if (errors.length) throw new ConfigError(errors);
  return config;
}

/** Starts a fresh bench stack; the returned function stops it. */
export async function startBenchStack(config: RecurConfig, log: (line: string) => void): Promise<() => Promise<void>> {
  await down(config);
  rmSync(config.home, { recursive: true, force: true });
  await up(config, (line) => log(`[stack] ${line}`));
  return async () => {
    await down(config, (line) => log(`[stack] ${line}`));
  };
}
