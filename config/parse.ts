import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../errors';
import { defaultConfig } from './defaults';
import type { ParsedConfig, RecurConfig } from './schema';

type Env = Record<string, string | undefined>;

/** Each environment variable Recur reads, the config path it sets, and how to read its value. */
const ENV_KEYS: Array<[string, (c: RecurConfig, v: string, fail: (msg: string) => void) => void]> = [
  ['RECUR_HOST', (c, v) => (c.host = v)],
  ['RECUR_KAFKA_PORT', port((c) => c.ports, 'kafka')],
  ['RECUR_KAFKA_CONTROLLER_PORT', port((c) => c.ports, 'kafkaController')],
  ['RECUR_TEMPORAL_PORT', port((c) => c.ports, 'temporal')],
  ['RECUR_TEMPORAL_HTTP_PORT', port((c) => c.ports, 'temporalHttp')],
  ['RECUR_TEMPORAL_METRICS_PORT', port((c) => c.ports, 'temporalMetrics')],
  ['RECUR_JUPYTER_PORT', port((c) => c.ports, 'jupyter')],
  ['RECUR_DAEMON_PORT', port((c) => c.ports, 'daemon')],
  ['RECUR_KAFKA_TOPIC', (c, v) => (c.kafka.topic = v)],
  ['RECUR_KAFKA_HEAP', (c, v) => (c.kafka.heap = v)],
  ['RECUR_TEMPORAL_NAMESPACE', (c, v) => (c.temporal.namespace = v)],
  ['RECUR_TASK_QUEUE', (c, v) => (c.temporal.taskQueue = v)],
  ['RECUR_MODEL', (c, v) => (c.agent.model = v)],
  ['RECUR_TURNS_PER_RUN', positive((c) => c.agent, 'turnsPerRun')],
  ['RECUR_SNAPSHOT_EVERY_CELLS', positive((c) => c.agent, 'snapshotEveryCells')],
  ['RECUR_CELL_TIMEOUT_SECONDS', positive((c) => c.agent, 'cellTimeoutSeconds')],
  ['RECUR_MAX_DEPTH', positive((c) => c.agent, 'maxDepth')],
  ['RECUR_MAX_TURNS', positive((c) => c.agent, 'maxTurns')],
  ['RECUR_IDLE_UNLOAD_SECONDS', positive((c) => c.agent, 'idleUnloadSeconds')],
  ['RECUR_PYTHON', (c, v) => (c.python = v)],
  ['RECUR_JAVA', (c, v) => (c.java = v)],
];

/** Names of every variable `loadConfig` reads, for `recur --help` and the README. */
export const CONFIG_ENV_VARS = ['RECUR_HOME', 'RECUR_TOOLS_DIR', 'JAVA_HOME', ...ENV_KEYS.map(([k]) => k)];

function port<T>(section: (c: RecurConfig) => T, key: keyof T) {
  return (c: RecurConfig, v: string, fail: (msg: string) => void) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 65535) return fail(`expected a port 1-65535, got "${v}"`);
    (section(c) as Record<keyof T, unknown>)[key] = n;
  };
}

function positive<T>(section: (c: RecurConfig) => T, key: keyof T) {
  return (c: RecurConfig, v: string, fail: (msg: string) => void) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) return fail(`expected a positive number, got "${v}"`);
    (section(c) as Record<keyof T, unknown>)[key] = n;
  };
}

/**
 * Defaults, then `<home>/config.json` (a partial RecurConfig), then the environment.
 * Never throws: problems come back in `errors` so a caller can print them all at once.
 */
export function parseConfig(env: Env = process.env): ParsedConfig {
  const config = defaultConfig();
  const warnings: string[] = [];
  const errors: string[] = [];
  if (env.RECUR_HOME) {
    config.home = resolve(env.RECUR_HOME);
    config.toolsDir = join(config.home, 'tools');
  }
  if (env.RECUR_TOOLS_DIR) config.toolsDir = resolve(env.RECUR_TOOLS_DIR);
  if (env.JAVA_HOME) config.java = join(env.JAVA_HOME, 'bin', 'java');

  const file = join(config.home, 'config.json');
  if (existsSync(file)) {
    try {
      mergeInto(config, JSON.parse(readFileSync(file, 'utf8')), '', warnings);
    } catch (e) {
      errors.push(`${file}: ${(e as Error).message}`);
    }
  }
  for (const [name, apply] of ENV_KEYS) {
    const v = env[name];
    if (v !== undefined && v !== '') apply(config, v, (msg) => errors.push(`${name}: ${msg}`));
  }
  const ports = Object.entries(config.ports);
  for (const [name, p] of ports) {
    const clash = ports.find(([other, q]) => other < name && q === p);
    if (clash) errors.push(`ports.${clash[0]} and ports.${name} are both ${p}`);
  }
  return { config, warnings, errors };
}

function mergeInto(target: object, patch: unknown, path: string, warnings: string[]): void {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw new Error(`expected an object at ${path || 'top level'}`);
  }
  const t = target as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) {
    const at = path ? `${path}.${k}` : k;
    if (!(k in t)) {
      warnings.push(`config.json: unknown key ${at} ignored`);
    } else if (typeof t[k] === 'object' && t[k] !== null) {
      mergeInto(t[k] as object, v, at, warnings);
    } else if (t[k] === null ? v !== null && typeof v !== 'string' : typeof v !== typeof t[k]) {
      throw new Error(`${at} must be a ${typeof t[k]}`);
    } else {
      t[k] = v;
    }
  }
}

/** The config, or a ConfigError listing every problem. */
export function loadConfig(env: Env = process.env): RecurConfig {
  const { config, errors } = parseConfig(env);
  if (errors.length) throw new ConfigError(errors);
  return config;
}
