import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecurConfig } from './schema';

/** Where the embedded stack keeps things. Tools are shared between homes; data and pids are not. */
export function stackPaths(config: RecurConfig) {
  const run = join(config.home, 'run');
  const hostRun = join(hostDir(config), 'run');
  return {
    run,
    logs: join(config.home, 'logs'),
    /** This host's pids, logs and Jupyter runtime: the home's own for `local`, `hosts/<id>/` for another (docs/hosts.md). */
    hostRun,
    hostLogs: join(hostDir(config), 'logs'),
    blobs: join(config.home, 'blobs'),
    /** Harness skills written as Python packages for kernels to import (rebuilt from the log on demand). */
    skills: join(config.home, 'skills'),
    /** Per-workspace scan state: a shadow git index and object store, the latest manifest (activities/workspace). */
    workspaceLog: join(run, 'workspace-log'),
    kafkaData: join(config.home, 'kafka'),
    /** Where each session tree starts in the event topic (services/projector/offset-index.ts), one folder per topic. */
    logIndex: join(config.home, 'log-index', encodeURIComponent(config.kafka.topic)),
    temporalDb: join(config.home, 'temporal', 'dev.db'),
    jupyterRoot: join(hostDir(config), 'jupyter'),
    jupyterToken: join(hostRun, 'jupyter.token'),
    bridgeSecret: join(run, 'bridge.secret'),
    /** The embedded broker's SCRAM users and passwords (config/kafka-credentials.ts). */
    kafkaCredentials: join(run, 'kafka-credentials.json'),
    /** The event log's signing key and every public key that ever signed (services/home/log-keys.ts). */
    keys: join(config.home, 'keys'),
    /** Each job's output, `<session key>/<job id>.log`: this host's, since its executor ran them (docs/jobs.md). */
    jobLogs: join(hostDir(config), 'jobs'),
    /** What research experiments judged: each source snapshot as `<sha256>/train.py`, written from the blob store. */
    judged: join(hostDir(config), 'research'),
    /** Subscription logins (`recur login`), owner-only; read by the CLI and the worker's model activity (activities/model/auth). */
    logins: join(config.home, 'logins'),
    venv: join(config.toolsDir, 'venv'),
    python: join(config.toolsDir, 'venv', 'bin', 'python'),
    temporalBin: join(config.toolsDir, 'venv', 'bin', 'temporal'),
    kafkaLib: join(config.toolsDir, 'kafka', 'lib'),
    /** The pinned GGUF models `local/<name>` runs (services/devstack/local-model.ts). */
    localModels: join(config.toolsDir, 'models'),
  };
}

/** Where a host keeps what is its own; every host of a home shares the rest (blobs, keys, sandbox policies, workspaces). */
export const hostDir = (config: RecurConfig): string => config.hostId === 'local' ? config.home : join(config.home, 'hosts', config.hostId);

export interface JupyterConnection {
  baseUrl: string;
  wsUrl: string;
  token: string;
}

/** How to reach the Jupyter server that `recur up` started (its token is random per start). */
export function jupyterConnection(config: RecurConfig): JupyterConnection {
  const token = readFileSync(stackPaths(config).jupyterToken, 'utf8').trim();
  const base = `${config.host}:${config.ports.jupyter}`;
  return { baseUrl: `http://${base}/`, wsUrl: `ws://${base}/`, token };
}
