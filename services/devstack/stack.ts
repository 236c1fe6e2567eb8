import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RecurConfig } from '../../config';
import { StackError } from '../../errors';
import { daemonPaths } from '../daemon/paths';
import { daemonService } from './daemon';
import { ensureTools } from './install';
import { embeddedKafka, embeddedTemporal } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { ensureEventTopicAccess } from './kafka-acls';
import { jupyterService } from './jupyter';
import { kafkaService } from './kafka';
import { ensureLogKey } from '../home/log-keys';
import { liveProcess, startDetached, stopProcess } from '../home/process';
import { portFree } from './ports';
import type { ServiceDef } from './service';
import { temporalService } from './temporal';
import { checkSandbox } from '../sandbox/check-sandbox';

/** Started together, each on its own. */
const INFRA: ServiceDef[] = [kafkaService, temporalService, jupyterService];
/** The daemon (and the worker it supervises) needs all of INFRA healthy first. */
export const SERVICES: ServiceDef[] = [...INFRA, daemonService];

/** What this home runs itself: an external Kafka or Temporal is someone else's to start and watch. */
function managed(config: RecurConfig): ServiceDef[] {
  return SERVICES.filter((s) => (s !== kafkaService || embeddedKafka(config)) && (s !== temporalService || embeddedTemporal(config)));
}

export interface ServiceStatus {
  name: string;
  pid: number | null;
  url: string;
  healthy: boolean;
}

type Log = (line: string) => void;

const pidFile = (config: RecurConfig, s: ServiceDef) => join(stackPaths(config).run, `${s.name}.pid`);
const logFile = (config: RecurConfig, s: ServiceDef) => join(stackPaths(config).logs, `${s.name}.log`);

function logTail(file: string, lines = 12): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Which services need starting; a sick one of ours is stopped first. Fails before anything starts if a port is taken. */
async function plan(config: RecurConfig): Promise<ServiceDef[]> {
  const todo: ServiceDef[] = [];
  for (const s of managed(config)) {
    const running = liveProcess(pidFile(config, s));
    if (running && (await s.healthy(config))) continue;
    if (running) await stopProcess(running);
    todo.push(s);
  }
  for (const s of todo) await checkPorts(config, s);
  return todo;
}

async function checkPorts(config: RecurConfig, s: ServiceDef): Promise<void> {
  for (const { setting, port } of s.ports(config)) {
    if (!(await portFree(config.host, port))) {
      throw new StackError(s.name, `port ${port} on ${config.host} is already in use by another process`,
        `stop that process or choose another port with ${setting}=<port>`);
    }
  }
}

async function startOne(config: RecurConfig, s: ServiceDef, log: Log): Promise<void> {
  const spec = await s.prepare(config);
  const rec = startDetached({ ...spec, logFile: logFile(config, s), pidFile: pidFile(config, s) });
  log(`${s.name}: started (pid ${rec.pid}), waiting for it to be healthy…`);
  const deadline = Date.now() + s.startTimeoutSeconds * 1000;
  while (Date.now() < deadline) {
    if (await s.healthy(config)) return;
    if (!liveProcess(pidFile(config, s))) {
      throw new StackError(s.name, `exited during start-up; last lines of ${logFile(config, s)}:\n${logTail(logFile(config, s))}`,
        'fix the cause shown above and run `recur up` again');
    }
    await sleep(250);
  }
  throw new StackError(s.name, `not healthy after ${s.startTimeoutSeconds}s; see ${logFile(config, s)}`,
    'run `recur down` and `recur up` again');
}

/** Installs what is missing, starts every service not already healthy, and waits for all of them. */
export async function up(config: RecurConfig, log: Log = () => undefined): Promise<ServiceStatus[]> {
  ensureLogKey(stackPaths(config).keys);
  const todo = await plan(config);
  if (todo.length === 0) return status(config);
  ensureTools(config, log);
  if (todo.includes(jupyterService)) checkSandbox(config);
  const results = await Promise.allSettled(todo.filter((s) => INFRA.includes(s)).map((s) => startOne(config, s, log)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  // The event topic and its ACLs exist before anything that reads or writes it starts.
  if (embeddedKafka(config)) await ensureEventTopicAccess(config);
  if (todo.includes(daemonService)) await startOne(config, daemonService, log);
  return status(config);
}

/** Stops this home's daemon and starts it again under `config` (a daemon reads its settings once, at start); the other services keep running. */
export async function restartDaemon(config: RecurConfig, log: Log = () => undefined): Promise<void> {
  const rec = liveProcess(pidFile(config, daemonService));
  if (rec) await stopProcess(rec);
  await up(config, log);
}

/**
 * A service `up` does not start (the test stack's S3 server), under this home's pid and log files
 * like the rest; a healthy one already running is kept. `stopService` ends it, as `down` the others.
 */
export async function startService(config: RecurConfig, s: ServiceDef, log: Log = () => undefined): Promise<void> {
  const running = liveProcess(pidFile(config, s));
  if (running && (await s.healthy(config))) return;
  if (running) await stopProcess(running);
  await checkPorts(config, s);
  await startOne(config, s, log);
}

/** The pid of this home's live process of `s`, or null. */
export function servicePid(config: RecurConfig, s: ServiceDef): number | null {
  return liveProcess(pidFile(config, s))?.pid ?? null;
}

export async function stopService(config: RecurConfig, s: ServiceDef): Promise<void> {
  const rec = liveProcess(pidFile(config, s));
  if (rec) await stopProcess(rec);
}

/** Stops what this home's `up` started, and nothing else. */
export async function down(config: RecurConfig, log: Log = () => undefined): Promise<string[]> {
  const stopped: string[] = [];
  const stop = async (s: ServiceDef) => {
    const rec = liveProcess(pidFile(config, s));
    if (!rec) return;
    await stopProcess(rec);
    log(`${s.name}: stopped (pid ${rec.pid})`);
    stopped.push(s.name);
  };
  await stop(daemonService);
  await Promise.all(INFRA.filter((s) => managed(config).includes(s)).map(stop));
  return stopped;
}

export async function status(config: RecurConfig): Promise<ServiceStatus[]> {
  const services = await Promise.all(managed(config).map(async (s) => {
    const rec = liveProcess(pidFile(config, s));
    return { name: s.name, pid: rec?.pid ?? null, url: s.url(config), healthy: rec !== null && (await s.healthy(config)) };
  }));
  // The worker is the daemon's child, restarted by it; shown so a user can see (and kill) it.
  const worker = liveProcess(daemonPaths(config).workerPid);
  const url = `temporal://${config.temporal.namespace}/${config.temporal.taskQueue}`;
  return [...services, { name: 'worker', pid: worker?.pid ?? null, url, healthy: worker !== null }];
}
