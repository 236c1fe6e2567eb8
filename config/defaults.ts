import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_APPROVAL_POLICY } from '../workflows/approvals/approval-policy';
import { DEFAULT_SENSITIVE_PATHS } from '../activities/workspace/sensitive-paths';
import { DEFAULT_HOST_ID } from '../workflows/hosts/host-queue';
import type { RecurConfig } from './schema';

/** Where tests, benchmarks and the demo put their scripted-model files: the home's own `scripts/`. */
export function defaultScriptedDirs(home: string): string[] {
  return [join(home, 'scripts')];
}

const noTls = () => ({ enabled: false, caFile: null, certFile: null, keyFile: null, serverName: null });

/**
 * Ports sit in a block of their own (19xxx) so the embedded stack does not fight a Kafka,
 * Temporal or Jupyter the user already runs on the well-known ports.
 */
export function defaultConfig(): RecurConfig {
  return {
    home: join(homedir(), '.recur'),
    toolsDir: join(homedir(), '.recur', 'tools'),
    host: '127.0.0.1',
    hostId: DEFAULT_HOST_ID,
    ports: {
      kafka: 19092,
      kafkaController: 19093,
      temporal: 17233,
      temporalHttp: 17243,
      temporalMetrics: 17253,
      jupyter: 18888,
      daemon: 17300,
    },
    kafka: {
      topic: 'recur.events.v1', partitions: 4, clientId: 'recur', heap: '512m',
      brokers: [],
      sasl: { mechanism: 'none', username: null, passwordFile: null, readerUsername: null, readerPasswordFile: null },
      tls: noTls(),
    },
    temporal: { namespace: 'default', taskQueue: 'recur-sessions', address: null, tls: noTls(), apiKeyFile: null },
    agent: {
      model: null,
      backupModel: null,
      // An hour of waiting on a rate limit is past a per-minute window: the quota is out for longer.
      backupAfterMinutes: 60,
      scriptedDirs: defaultScriptedDirs(join(homedir(), '.recur')),
      cellTimeoutSeconds: 600,
      maxDepth: 2,
      maxTurns: 50,
      idleUnloadSeconds: 30 * 60,
      turnsPerRun: 100,
      snapshotEveryCells: 3,
      compactAtTokens: 120_000,
      // Room for a thorough AGENTS.md (they run to a few KiB) without letting one crowd out the conversation.
      contextFileMaxBytes: 32 * 1024,
      // Sized for real fan-out (a map over dozens of items, a few levels deep), not for a runaway loop.
      maxChildren: 64,
      maxTreeSessions: 1000,
      messagesPerMinute: 60,
      messageBurst: 30,
      // A fresh ipykernel holds ~85 MB: 25 is about 2 GB before the agents' own data
      // (bench/retained-scale.ts: a tree's memory follows this, not its retained sub-agents).
      maxLoadedKernels: 25,
    },
    harness: { globalScope: 'global', refineApply: 'auto', autoRefineTurns: 0 },
    autonomous: { maxTurns: 2000, maxTokens: 50_000_000, maxCostUsd: 100, maxSeconds: 12 * 3600, maxTreeTurns: 20_000, gateTimeoutSeconds: 300 },
    // Sized for real work (a pandas frame of a few GB, a build with parallel jobs), not for a runaway cell.
    sandbox: { mode: 'on', memoryMiB: 4096, maxProcesses: 1024, maxOpenFiles: 4096, maxFileMiB: 16_384, net: 'none' },
    approvals: { ...structuredClone(DEFAULT_APPROVAL_POLICY), policyFile: null },
    blobStore: { url: null, endpoint: null, region: null },
    worker: { transcriptCacheMiB: 256, workspaceMaxFileKiB: 1024, cachedWorkflows: 200, jobCpus: 2, jobExecutor: 'local', slurmPartition: null, sensitivePaths: [...DEFAULT_SENSITIVE_PATHS] },
    // SmolLM2 was trained on 8k tokens; the base prompt alone is about 700.
    local: { modelsDir: null, threads: 2, contextTokens: 8192, maxTokens: 512 },
    ci: { enabled: false, stepSummary: null, stepOutput: null },
    // A code lives long enough to paste into a browser; a sign-in lasts a working day.
    ui: { codeSeconds: 120, sessionSeconds: 12 * 3600, temporalUiUrl: null, traceUrl: null, cacheMiB: 256 },
    python: 'python3',
    java: 'java',
    chromium: '/usr/bin/chromium',
  };
}
