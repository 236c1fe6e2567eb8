import type { RecurConfig } from '../../config';
import { daemonPaths } from '../daemon/paths';
import { daemonService } from './daemon';
import { ensureTools } from './install';
import { embeddedKafka, embeddedTemporal } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { ensureEventTopicAccess } from './kafka-acls';
import { jupyterService } from './jupyter';
import { kafkaService } from './kafka';
import { ensureLogKey } from '../home/log-keys';
import { liveProcess, stopProcess } from '../home/process';
import type { ServiceDef, ServiceStatus } from './service';
import { checkPorts, pidFile, startOne } from './service-run';
import { temporalService } from './temporal';
import { checkSandbox } from '../sandbox/check-sandbox';
import { homeHosts, hostStatus, stopHost } from './hosts';

/** Started together, each on its own. */
const INFRA: ServiceDef[] = [kafkaService, temporalService, jupyterService];
/** The daemon (and the worker it supervises) needs all of INFRA healthy first. */
export const SERVICES: ServiceDef[] = [...INFRA, daemonService];

/** What this home runs itself: an external Kafka or Temporal is someone else's to start and watch. */
function managed(config: RecurConfig): ServiceDef[] {
  return SERVICES.filter((s) => (s !== kafkaService || embeddedKafka(config)) && (s !== temporalService || embeddedTemporal(config)));
}


type Log = (line: string) => void;



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
  if (embeddedKafka(config)) {
    const restored = await ensureEventTopicAccess(config);
    if (restored.length > 0) log(`kafka: the event topic ${config.kafka.topic} had lost ${restored.join(', ')}; put back`);
  }
  if (todo.includes(daemonService)) await startOne(config, daemonService, log);
  return status(config);
}

/** Stops this home's daemon and starts it again under `config` (a daemon reads its settings once, at start); the other services keep running. */
export async function restartDaemon(config: RecurConfig, log: Log = () => undefined): Promise<void> {
  const rec = liveProcess(pidFile(config, daemonService));
  if (rec) await stopProcess(rec);
  await up(config, log);
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
  // Hosts first: their workers need Temporal to leave the registry.
  for (const h of homeHosts(config)) if (await stopHost(config, h.id, () => undefined)) stopped.push(`host ${h.id}`);
  await stop(daemonService);
  await Promise.all(INFRA.filter((s) => managed(config).includes(s)).map(stop));
  return stopped;
}

export async function status(config: RecurConfig): Promise<ServiceStatus[]> {
  const services = await Promise.all(managed(config).map(async (s) => {
    const rec = liveProcess(pidFile(config, s));
    return { name: s.name, host: config.hostId, pid: rec?.pid ?? null, url: s.url(config), healthy: rec !== null && (await s.healthy(config)) };
  }));
  // The worker is the daemon's child, restarted by it; shown so a user can see (and kill) it.
  const worker = liveProcess(daemonPaths(config).workerPid);
  const url = `temporal://${config.temporal.namespace}/${config.temporal.taskQueue}`;
  const local = { name: 'worker', host: config.hostId, pid: worker?.pid ?? null, url, healthy: worker !== null };
  const others = await Promise.all(homeHosts(config).map((h) => hostStatus(config, h)));
  return [...services, local, ...others.flat()];
}
