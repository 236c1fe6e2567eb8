import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { ConfigError } from '../errors';
import { defaultConfig, defaultScriptedDirs } from './defaults';
import { parseNetPolicy } from './net-policy';
import { RANGES, describeRange, inRange, type NumericRange } from './ranges';
import { SASL_MECHANISMS, externalServiceErrors } from './external';
import { uiLinkErrors } from './ui-links';
import { blobStoreErrors, readAwsEnv } from './blob-store';
import { sensitivePathErrors, withDefaultRules } from './sensitive-paths';
import { ciPolicyErrors } from '../workflows/approvals/approval-policy';
import type { ParsedConfig, RecurConfig, SaslMechanism } from './schema';

type Env = Record<string, string | undefined>;

/**
 * How a variable's text becomes a value: as text, a path list, a port, a refine mode, on/off, a
 * network policy, or a number in its range; for external services also a comma list, a file
 * path, a flag and a SASL mechanism; the job executor's name; sensitive-path rules, a comma list too.
 */
type Kind = 'text' | 'paths' | 'port' | 'refine-apply' | 'on-off' | 'net' | 'job-executor' | NumericRange | 'list' | 'file' | 'flag' | 'sasl-mechanism';
type Section = (c: RecurConfig) => Record<string, unknown>;

const top: Section = (c) => c as unknown as Record<string, unknown>;
const ports: Section = (c) => c.ports;
const kafka: Section = (c) => c.kafka;
const temporal: Section = (c) => c.temporal;
const agent: Section = (c) => c.agent;
const harness: Section = (c) => c.harness;
const autonomous: Section = (c) => c.autonomous;
const worker: Section = (c) => c.worker;
const sandbox: Section = (c) => c.sandbox;
const kafkaSasl: Section = (c) => c.kafka.sasl as unknown as Record<string, unknown>;
const kafkaTls: Section = (c) => c.kafka.tls as unknown as Record<string, unknown>;
const temporalTls: Section = (c) => c.temporal.tls as unknown as Record<string, unknown>;
const local: Section = (c) => c.local;
const approvals: Section = (c) => c.approvals as unknown as Record<string, unknown>;
const ui: Section = (c) => c.ui;
const blobStore: Section = (c) => c.blobStore;

/** Each environment variable Recur reads and the config field it sets: one table for reading and writing. */
const ENV_KEYS: ReadonlyArray<readonly [string, Section, string, Kind]> = [
  ['RECUR_HOST', top, 'host', 'text'],
  ['RECUR_HOST_ID', top, 'hostId', 'text'],
  ['RECUR_KAFKA_PORT', ports, 'kafka', 'port'],
  ['RECUR_KAFKA_CONTROLLER_PORT', ports, 'kafkaController', 'port'],
  ['RECUR_TEMPORAL_PORT', ports, 'temporal', 'port'],
  ['RECUR_TEMPORAL_HTTP_PORT', ports, 'temporalHttp', 'port'],
  ['RECUR_TEMPORAL_METRICS_PORT', ports, 'temporalMetrics', 'port'],
  ['RECUR_JUPYTER_PORT', ports, 'jupyter', 'port'],
  ['RECUR_DAEMON_PORT', ports, 'daemon', 'port'],
  ['RECUR_KAFKA_TOPIC', kafka, 'topic', 'text'],
  ['RECUR_KAFKA_HEAP', kafka, 'heap', 'text'],
  ['RECUR_TEMPORAL_NAMESPACE', temporal, 'namespace', 'text'],
  ['RECUR_TASK_QUEUE', temporal, 'taskQueue', 'text'],
  ['RECUR_MODEL', agent, 'model', 'text'],
  ['RECUR_BACKUP_MODEL', agent, 'backupModel', 'text'],
  ['RECUR_BACKUP_AFTER_MINUTES', agent, 'backupAfterMinutes', RANGES.backupAfterMinutes],
  ['RECUR_SCRIPTED_DIRS', agent, 'scriptedDirs', 'paths'],
  ['RECUR_TURNS_PER_RUN', agent, 'turnsPerRun', RANGES.turnsPerRun],
  ['RECUR_SNAPSHOT_EVERY_CELLS', agent, 'snapshotEveryCells', RANGES.snapshotEveryCells],
  ['RECUR_CELL_TIMEOUT_SECONDS', agent, 'cellTimeoutSeconds', RANGES.cellTimeoutSeconds],
  ['RECUR_MAX_DEPTH', agent, 'maxDepth', RANGES.maxDepth],
  ['RECUR_MAX_TURNS', agent, 'maxTurns', RANGES.maxTurns],
  ['RECUR_IDLE_UNLOAD_SECONDS', agent, 'idleUnloadSeconds', RANGES.idleUnloadSeconds],
  ['RECUR_HARNESS_GLOBAL_SCOPE', harness, 'globalScope', 'text'],
  ['RECUR_REFINE_APPLY', harness, 'refineApply', 'refine-apply'],
  ['RECUR_AUTO_REFINE_TURNS', harness, 'autoRefineTurns', RANGES.autoRefineTurns],
  ['RECUR_COMPACT_AT_TOKENS', agent, 'compactAtTokens', RANGES.compactAtTokens],
  ['RECUR_CONTEXT_FILE_MAX_BYTES', agent, 'contextFileMaxBytes', RANGES.contextFileMaxBytes],
  ['RECUR_MAX_CHILDREN', agent, 'maxChildren', RANGES.maxChildren],
  ['RECUR_MAX_TREE_SESSIONS', agent, 'maxTreeSessions', RANGES.maxTreeSessions],
  ['RECUR_MESSAGES_PER_MINUTE', agent, 'messagesPerMinute', RANGES.messagesPerMinute],
  ['RECUR_MESSAGE_BURST', agent, 'messageBurst', RANGES.messageBurst],
  ['RECUR_MAX_LOADED_KERNELS', agent, 'maxLoadedKernels', RANGES.maxLoadedKernels],
  ['RECUR_AUTONOMOUS_MAX_TURNS', autonomous, 'maxTurns', RANGES.maxTurns],
  ['RECUR_AUTONOMOUS_MAX_TOKENS', autonomous, 'maxTokens', RANGES.maxTokens],
  ['RECUR_AUTONOMOUS_MAX_COST_USD', autonomous, 'maxCostUsd', RANGES.maxCostUsd],
  ['RECUR_AUTONOMOUS_MAX_SECONDS', autonomous, 'maxSeconds', RANGES.maxSeconds],
  ['RECUR_AUTONOMOUS_MAX_TREE_TURNS', autonomous, 'maxTreeTurns', RANGES.maxTreeTurns],
  ['RECUR_GATE_TIMEOUT_SECONDS', autonomous, 'gateTimeoutSeconds', RANGES.gateTimeoutSeconds],
  ['RECUR_TRANSCRIPT_CACHE_MIB', worker, 'transcriptCacheMiB', RANGES.transcriptCacheMiB],
  ['RECUR_WORKSPACE_MAX_FILE_KIB', worker, 'workspaceMaxFileKiB', RANGES.workspaceMaxFileKiB],
  ['RECUR_WORKER_CACHED_WORKFLOWS', worker, 'cachedWorkflows', RANGES.cachedWorkflows],
  ['RECUR_JOB_CPUS', worker, 'jobCpus', RANGES.jobCpus],
  ['RECUR_JOB_EXECUTOR', worker, 'jobExecutor', 'job-executor'],
  ['RECUR_SLURM_PARTITION', worker, 'slurmPartition', 'text'],
  ['RECUR_SENSITIVE_PATHS', worker, 'sensitivePaths', 'list'],
  ['RECUR_LOCAL_MODELS_DIR', local, 'modelsDir', 'file'],
  ['RECUR_LOCAL_THREADS', local, 'threads', RANGES.localThreads],
  ['RECUR_LOCAL_CONTEXT_TOKENS', local, 'contextTokens', RANGES.localContextTokens],
  ['RECUR_LOCAL_MAX_TOKENS', local, 'maxTokens', RANGES.localMaxTokens],
  ['RECUR_SANDBOX', sandbox, 'mode', 'on-off'],
  ['RECUR_SANDBOX_MEMORY_MIB', sandbox, 'memoryMiB', RANGES.sandboxMemoryMiB],
  ['RECUR_SANDBOX_MAX_PROCESSES', sandbox, 'maxProcesses', RANGES.sandboxMaxProcesses],
  ['RECUR_SANDBOX_MAX_OPEN_FILES', sandbox, 'maxOpenFiles', RANGES.sandboxMaxOpenFiles],
  ['RECUR_SANDBOX_MAX_FILE_MIB', sandbox, 'maxFileMiB', RANGES.sandboxMaxFileMiB],
  ['RECUR_SANDBOX_NET', sandbox, 'net', 'net'],
  // External Kafka and Temporal (docs/external-services.md); unset, `recur up` runs its own.
  ['RECUR_KAFKA_BROKERS', kafka, 'brokers', 'list'],
  ['RECUR_KAFKA_SASL_MECHANISM', kafkaSasl, 'mechanism', 'sasl-mechanism'],
  ['RECUR_KAFKA_SASL_USERNAME', kafkaSasl, 'username', 'text'],
  ['RECUR_KAFKA_SASL_PASSWORD_FILE', kafkaSasl, 'passwordFile', 'file'],
  ['RECUR_KAFKA_SASL_READER_USERNAME', kafkaSasl, 'readerUsername', 'text'],
  ['RECUR_KAFKA_SASL_READER_PASSWORD_FILE', kafkaSasl, 'readerPasswordFile', 'file'],
  ['RECUR_KAFKA_TLS', kafkaTls, 'enabled', 'flag'],
  ['RECUR_KAFKA_TLS_CA_FILE', kafkaTls, 'caFile', 'file'],
  ['RECUR_KAFKA_TLS_CERT_FILE', kafkaTls, 'certFile', 'file'],
  ['RECUR_KAFKA_TLS_KEY_FILE', kafkaTls, 'keyFile', 'file'],
  ['RECUR_KAFKA_TLS_SERVER_NAME', kafkaTls, 'serverName', 'text'],
  ['RECUR_TEMPORAL_ADDRESS', temporal, 'address', 'text'],
  ['RECUR_TEMPORAL_API_KEY_FILE', temporal, 'apiKeyFile', 'file'],
  ['RECUR_TEMPORAL_TLS', temporalTls, 'enabled', 'flag'],
  ['RECUR_TEMPORAL_TLS_CA_FILE', temporalTls, 'caFile', 'file'],
  ['RECUR_TEMPORAL_TLS_CERT_FILE', temporalTls, 'certFile', 'file'],
  ['RECUR_TEMPORAL_TLS_KEY_FILE', temporalTls, 'keyFile', 'file'],
  ['RECUR_TEMPORAL_TLS_SERVER_NAME', temporalTls, 'serverName', 'text'],
  ['RECUR_APPROVAL_POLICY', approvals, 'policyFile', 'text'],
  ['RECUR_APPROVAL_SPEND_TOKENS', approvals, 'spendTokens', RANGES.approvalSpendTokens],
  ['RECUR_APPROVAL_SPEND_USD', approvals, 'spendCostUsd', RANGES.approvalSpendUsd],
  ['RECUR_APPROVAL_CI_WAIT_SECONDS', approvals, 'ciWaitSeconds', RANGES.approvalCiWaitSeconds],
  ['RECUR_UI_CODE_SECONDS', ui, 'codeSeconds', RANGES.uiCodeSeconds],
  ['RECUR_UI_SESSION_SECONDS', ui, 'sessionSeconds', RANGES.uiSessionSeconds],
  ['RECUR_TEMPORAL_UI_URL', ui, 'temporalUiUrl', 'text'],
  ['RECUR_TRACE_URL', ui, 'traceUrl', 'text'],
  ['RECUR_UI_CACHE_MIB', ui, 'cacheMiB', RANGES.uiCacheMiB],
  ['RECUR_BLOB_STORE', blobStore, 'url', 'text'],
  ['RECUR_PYTHON', top, 'python', 'text'],
  ['RECUR_JAVA', top, 'java', 'text'],
  ['RECUR_CHROMIUM', top, 'chromium', 'text'],
];

/** Names of every variable `loadConfig` reads, for `recur --help` and docs/configuration.md. */
export const CONFIG_ENV_VARS = [
  'RECUR_HOME', 'RECUR_TOOLS_DIR', 'JAVA_HOME', 'CI', 'GITHUB_STEP_SUMMARY', 'GITHUB_OUTPUT',
  'AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL', 'AWS_REGION', 'AWS_DEFAULT_REGION', ...ENV_KEYS.map(([k]) => k),
];

/** The value a variable's text stands for, or why it stands for none. */
function read(kind: Kind, v: string): { value: string | number | boolean | string[] } | { error: string } {
  if (kind === 'text') return { value: v };
  if (kind === 'paths') return { value: v.split(delimiter).filter((p) => p !== '').map((p) => resolve(p)) };
  if (kind === 'list') return { value: v.split(',').map((x) => x.trim()).filter((x) => x !== '') };
  if (kind === 'file') return { value: resolve(v) };
  if (kind === 'flag') return v === 'true' || v === '1' ? { value: true } : v === 'false' || v === '0' ? { value: false } : { error: `expected true or false, got "${v}"` };
  if (kind === 'sasl-mechanism') return SASL_MECHANISMS.includes(v as SaslMechanism) ? { value: v } : { error: `expected one of ${SASL_MECHANISMS.join(', ')}, got "${v}"` };
  const n = Number(v);
  if (kind === 'refine-apply') return v === 'auto' || v === 'approve' ? { value: v } : { error: `expected auto or approve, got "${v}"` };
  if (kind === 'job-executor') return v === 'local' || v === 'slurm' || v === 'virtual' ? { value: v } : { error: `expected local, slurm or virtual, got "${v}"` };
  if (kind === 'on-off') return v === 'on' || v === 'off' ? { value: v } : { error: `expected on or off, got "${v}"` };
  if (kind === 'net') {
    const policy = parseNetPolicy(v);
    return 'error' in policy ? policy : { value: v.trim().toLowerCase() };
  }
  if (kind === 'port') return Number.isInteger(n) && n >= 1 && n <= 65535 ? { value: n } : { error: `expected a port 1-65535, got "${v}"` };
  return v.trim() !== '' && inRange(kind, n) ? { value: n } : { error: `expected ${describeRange(kind)}, got "${v}"` };
}

/** config.json may set numbers too: each ranged setting is checked once everything is merged. */
function outOfRange(config: RecurConfig): string[] {
  const errors: string[] = [];
  for (const [name, section, key, kind] of ENV_KEYS) {
    const value = section(config)[key];
    if (typeof kind === 'object' && !inRange(kind, value)) {
      errors.push(`${name} (config ${sectionPath(config, section)}${key}): ${JSON.stringify(value)} is out of range; expected ${describeRange(kind)}`);
    }
  }
  return errors;
}

function sectionPath(config: RecurConfig, section: Section): string {
  const target = section(config);
  const name = Object.entries(config).find(([, v]) => v === target)?.[0];
  return name ? `${name}.` : '';
}

/** The environment that makes `loadConfig` in another process return this config (for the processes `recur up` starts). */
export function configToEnv(config: RecurConfig): Record<string, string> {
  const env: Record<string, string> = { RECUR_HOME: config.home, RECUR_TOOLS_DIR: config.toolsDir };
  for (const [name, section, key, kind] of ENV_KEYS) {
    const value = section(config)[key];
    if (value !== null && value !== undefined) env[name] = Array.isArray(value) ? value.join(kind === 'list' ? ',' : delimiter) : String(value);
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
    config.agent.scriptedDirs = defaultScriptedDirs(config.home);
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
  readCiEnv(config, env);
  readAwsEnv(config, env);
  mergePolicyFile(config, env, warnings, errors);
  config.worker.sensitivePaths = withDefaultRules(config.worker.sensitivePaths);
  errors.push(...outOfRange(config), ...externalServiceErrors(config), ...uiLinkErrors(config), ...blobStoreErrors(config), ...sensitivePathErrors(config), ...ciPolicyErrors(config.approvals));
  // It names a task queue and a directory of the home.
  if (!/^[a-z0-9][a-z0-9-]{0,31}$/.test(config.hostId)) errors.push(`RECUR_HOST_ID (config hostId): "${config.hostId}" is not 1-32 lowercase letters, digits and dashes, starting with a letter or digit`);
  if (!['local', 'slurm', 'virtual'].includes(config.worker.jobExecutor)) errors.push(`RECUR_JOB_EXECUTOR (config worker.jobExecutor): expected local, slurm or virtual, got ${JSON.stringify(config.worker.jobExecutor)}`);
  // It goes to sbatch as one argument, and a comma there would name several partitions.
  const partition = config.worker.slurmPartition;
  if (partition !== null && !/^[A-Za-z0-9_.-]{1,64}$/.test(partition)) errors.push(`RECUR_SLURM_PARTITION (config worker.slurmPartition): "${partition}" is not one Slurm partition name (1-64 letters, digits, _ . -)`);
  const net = parseNetPolicy(config.sandbox.net);
  if ('error' in net) errors.push(`RECUR_SANDBOX_NET (config sandbox.net): ${net.error}`);
  const ports = Object.entries(config.ports);
  for (const [name, p] of ports) {
    const clash = ports.find(([other, q]) => other < name && q === p);
    if (clash) errors.push(`ports.${clash[0]} and ports.${name} are both ${p}`);
  }
  return { config, warnings, errors };
}

/**
 * The CI's own variables. Any other value of CI (some runners set a name) leaves CI mode off
 * rather than failing every command; `--ci` turns it on explicitly.
 */
function readCiEnv(config: RecurConfig, env: Env): void {
  const ci = env.CI?.trim().toLowerCase();
  if (ci === 'true' || ci === '1') config.ci.enabled = true;
  if (env.GITHUB_STEP_SUMMARY) config.ci.stepSummary = resolve(env.GITHUB_STEP_SUMMARY);
  if (env.GITHUB_OUTPUT) config.ci.stepOutput = resolve(env.GITHUB_OUTPUT);
}

/** Objects whose keys are the user's own (approval kinds), merged key by key over the defaults; their values are checked later. */
const OPEN_RECORDS = new Set(['approvals.ci']);

function mergeInto(target: object, patch: unknown, path: string, warnings: string[]): void {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw new Error(`expected an object at ${path || 'top level'}`);
  }
  const t = target as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) {
    const at = path ? `${path}.${k}` : k;
    if (OPEN_RECORDS.has(at)) {
      if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.values(v).every((x) => typeof x === 'string')) {
        throw new Error(`${at} must be an object of strings`);
      }
      t[k] = { ...(t[k] as object), ...v };
    } else if (!(k in t)) {
      warnings.push(`config.json: unknown key ${at} ignored`);
    } else if (Array.isArray(t[k])) {
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new Error(`${at} must be an array of strings`);
      t[k] = v;
    } else if (typeof t[k] === 'object' && t[k] !== null) {
      mergeInto(t[k] as object, v, at, warnings);
    } else if (t[k] === null ? v !== null && typeof v !== 'string' : typeof v !== typeof t[k]) {
      throw new Error(`${at} must be a ${typeof t[k]}`);
    } else {
      t[k] = v;
    }
  }
}

/**
 * RECUR_APPROVAL_POLICY's file over the policy, then the policy's own variables again, so an
 * explicit RECUR_APPROVAL_SPEND_* still wins over the file.
 */
function mergePolicyFile(config: RecurConfig, env: Env, warnings: string[], errors: string[]): void {
  const file = config.approvals.policyFile;
  if (file === null) return;
  try {
    const { policyFile: _own, ...policy } = JSON.parse(readFileSync(resolve(file), 'utf8')) as Record<string, unknown>;
    mergeInto(config.approvals, policy, 'approvals', warnings);
  } catch (e) {
    errors.push(`RECUR_APPROVAL_POLICY ${file}: ${(e as Error).message}`);
    return;
  }
  for (const [name, section, key, kind] of ENV_KEYS) {
    const v = env[name];
    if (section !== approvals || v === undefined || v === '' || typeof kind !== 'object') continue;
    const r = read(kind, v);
    if (!('error' in r)) section(config)[key] = r.value;
  }
}

/** The config, or a ConfigError listing every problem. */
export function loadConfig(env: Env = process.env): RecurConfig {
  const { config, errors } = parseConfig(env);
  if (errors.length) throw new ConfigError(errors);
  return config;
}
