import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../errors';
import { defaultConfig } from './defaults';
import type { ParsedConfig, RecurConfig } from './schema';

type Env = Record<string, string | undefined>;

/** How a variable's text becomes a value. */
type Kind = 'text' | 'port' | 'positive' | 'count' | 'refine-apply';
type Section = (c: RecurConfig) => Record<string, unknown>;

const top: Section = (c) => c as unknown as Record<string, unknown>;
const ports: Section = (c) => c.ports;
const kafka: Section = (c) => c.kafka;
const temporal: Section = (c) => c.temporal;
const agent: Section = (c) => c.agent;
const harness: Section = (c) => c.harness;
const autonomous: Section = (c) => c.autonomous;

/** Each environment variable Recur reads and the config field it sets: one table for reading and writing. */
const ENV_KEYS: ReadonlyArray<readonly [string, Section, string, Kind]> = [
  ['RECUR_HOST', top, 'host', 'text'],
  ['RECUR_KAFKA_PORT', ports, 'kafka', 'port'],
  ['RECUR_KAFKA_CONTROLLER_PORT', ports, 'kafkaController', 'port'],
  ['RECUR_TEMPORAL_PORT', ports, 'temporal', 'port'],
  ['RECUR_TEMPORAL_HTTP_PORT', ports, 'temporalHttp', 'port'],
  ['RECUR_TEMPORAL_METRICS_PORT', ports, 'temporalMetrics', 'port'],
  ['RECUR_JUPYTER_PORT', ports, 'jupyter', 'port'],
  ['RECUR_DAEMON_PORT', ports, 'daemon', 'port'],
  ['RECUR_BRIDGE_PORT', ports, 'bridge', 'port'],
  ['RECUR_KAFKA_TOPIC', kafka, 'topic', 'text'],
  ['RECUR_KAFKA_HEAP', kafka, 'heap', 'text'],
  ['RECUR_TEMPORAL_NAMESPACE', temporal, 'namespace', 'text'],
  ['RECUR_TASK_QUEUE', temporal, 'taskQueue', 'text'],
  ['RECUR_MODEL', agent, 'model', 'text'],
  ['RECUR_TURNS_PER_RUN', agent, 'turnsPerRun', 'positive'],
  ['RECUR_SNAPSHOT_EVERY_CELLS', agent, 'snapshotEveryCells', 'positive'],
  ['RECUR_CELL_TIMEOUT_SECONDS', agent, 'cellTimeoutSeconds', 'positive'],
  ['RECUR_MAX_DEPTH', agent, 'maxDepth', 'positive'],
  ['RECUR_MAX_TURNS', agent, 'maxTurns', 'positive'],
  ['RECUR_IDLE_UNLOAD_SECONDS', agent, 'idleUnloadSeconds', 'positive'],
  ['RECUR_HARNESS_GLOBAL_SCOPE', harness, 'globalScope', 'text'],
  ['RECUR_REFINE_APPLY', harness, 'refineApply', 'refine-apply'],
  ['RECUR_AUTO_REFINE_TURNS', harness, 'autoRefineTurns', 'count'],
  ['RECUR_COMPACT_AT_TOKENS', agent, 'compactAtTokens', 'positive'],
  ['RECUR_MAX_CHILDREN', agent, 'maxChildren', 'positive'],
  ['RECUR_MAX_TREE_SESSIONS', agent, 'maxTreeSessions', 'positive'],
  ['RECUR_MESSAGES_PER_MINUTE', agent, 'messagesPerMinute', 'positive'],
  ['RECUR_MESSAGE_BURST', agent, 'messageBurst', 'positive'],
  ['RECUR_MAX_LOADED_KERNELS', agent, 'maxLoadedKernels', 'positive'],
  ['RECUR_AUTONOMOUS_MAX_TURNS', autonomous, 'maxTurns', 'positive'],
  ['RECUR_AUTONOMOUS_MAX_TOKENS', autonomous, 'maxTokens', 'positive'],
  ['RECUR_AUTONOMOUS_MAX_COST_USD', autonomous, 'maxCostUsd', 'positive'],
  ['RECUR_AUTONOMOUS_MAX_SECONDS', autonomous, 'maxSeconds', 'positive'],
  ['RECUR_GATE_TIMEOUT_SECONDS', autonomous, 'gateTimeoutSeconds', 'positive'],
  ['RECUR_PYTHON', top, 'python', 'text'],
  ['RECUR_JAVA', top, 'java', 'text'],
];

/** Names of every variable `loadConfig` reads, for `recur --help` and the README. */
export const CONFIG_ENV_VARS = ['RECUR_HOME', 'RECUR_TOOLS_DIR', 'JAVA_HOME', ...ENV_KEYS.map(([k]) => k)];

/** The value a variable's text stands for, or why it stands for none. */
function read(kind: Kind, v: string): { value: string | number } | { error: string } {
  if (kind === 'text') return { value: v };
  const n = Number(v);
  if (kind === 'refine-apply') return v === 'auto' || v === 'approve' ? { value: v } : { error: `expected auto or approve, got "${v}"` };
  if (kind === 'count') return Number.isInteger(n) && n >= 0 ? { value: n } : { error: `expected a whole number >= 0, got "${v}"` };
  if (kind === 'port') return Number.isInteger(n) && n >= 1 && n <= 65535 ? { value: n } : { error: `expected a port 1-65535, got "${v}"` };
  return Number.isFinite(n) && n > 0 ? { value: n } : { error: `expected a positive number, got "${v}"` };
}

/** The environment that makes `loadConfig` in another process return this config (for the processes `recur up` starts). */
export function configToEnv(config: RecurConfig): Record<string, string> {
  const env: Record<string, string> = { RECUR_HOME: config.home, RECUR_TOOLS_DIR: config.toolsDir };
  for (const [name, section, key] of ENV_KEYS) {
    const value = section(config)[key];
    if (value !== null && value !== undefined) env[name] = String(value);
  }
  return env;
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
  for (const [name, section, key, kind] of ENV_KEYS) {
    const v = env[name];
    if (v === undefined || v === '') continue;
    const r = read(kind, v);
    if ('error' in r) errors.push(`${name}: ${r.error}`);
    else section(config)[key] = r.value;
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
