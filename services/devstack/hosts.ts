import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { RecurConfig } from '../../config';
import { hostDir, stackPaths } from '../../config/home-paths';
import { StackError } from '../../errors';
import { DEFAULT_HOST_ID } from '../../workflows/hosts/host-queue';
import { liveProcess } from '../home/process';
import { ensureLogKey } from '../home/log-keys';
import { hostWorkerPid } from '../host/paths';
import { checkSandbox } from '../sandbox/check-sandbox';
import { hostService } from './host-service';
import { ensureTools } from './install';
import { jupyterService } from './jupyter';
import { pidFile, startService, stopService } from './service-run';
import type { ServiceDef, ServiceStatus } from './service';

type Log = (line: string) => void;

/** What `recur host start` chose for a host, kept so `status` and `stop` find it: `hosts/<id>/host.json`. */
interface HostRecord {
  id: string;
  jupyterPort: number;
}

const recordFile = (config: RecurConfig, id: string) => join(config.home, 'hosts', id, 'host.json');

/** The config a host's processes run under: the home's, with its id and its own Jupyter port. */
export function hostConfig(config: RecurConfig, rec: HostRecord): RecurConfig {
  return { ...config, hostId: rec.id, ports: { ...config.ports, jupyter: rec.jupyterPort } };
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen({ host, port: 0 }, () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Hosts this home started (`recur host start`) and has not stopped. */
export function homeHosts(config: RecurConfig): HostRecord[] {
  const dir = join(config.home, 'hosts');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((id) => existsSync(recordFile(config, id)))
    .map((id) => JSON.parse(readFileSync(recordFile(config, id), 'utf8')) as HostRecord);
}

/**
 * Starts host `id`: its Jupyter server (on `jupyterPort`, else a free port) and its supervised
 * worker, under `hosts/<id>/`. It joins whatever Kafka, Temporal and blob store `config` names.
 */
export async function startHost(config: RecurConfig, id: string, opts: { jupyterPort?: number }, log: Log): Promise<ServiceStatus[]> {
  if (id === DEFAULT_HOST_ID) throw new StackError('host', `"${id}" is the host \`recur up\` runs`, 'start it with `recur up`, or give this host another id');
  const known = homeHosts(config).find((h) => h.id === id);
  const rec: HostRecord = { id, jupyterPort: opts.jupyterPort ?? known?.jupyterPort ?? await freePort(config.host) };
  const c = hostConfig(config, rec);
  ensureLogKey(stackPaths(c).keys);
  ensureTools(c, log);
  checkSandbox(c);
  mkdirSync(hostDir(c), { recursive: true });
  writeFileSync(recordFile(config, id), JSON.stringify(rec));
  await startService(c, jupyterService, log);
  await startService(c, hostService, log);
  return hostStatus(config, rec);
}

/** Stops host `id`'s worker (which leaves the registry) and then its Jupyter server with its kernels. */
export async function stopHost(config: RecurConfig, id: string, log: Log): Promise<boolean> {
  const rec = homeHosts(config).find((h) => h.id === id);
  if (!rec) return false;
  const c = hostConfig(config, rec);
  for (const s of [hostService, jupyterService]) {
    await stopService(c, s);
    log(`${id}: ${s.name} stopped`);
  }
  rmSync(recordFile(config, id), { force: true });
  return true;
}

async function entry(c: RecurConfig, s: ServiceDef, pid: number | null): Promise<ServiceStatus> {
  return { name: s.name, host: c.hostId, pid, url: s.url(c), healthy: pid !== null && (await s.healthy(c)) };
}

/** A host's services: its Jupyter server, its supervisor and the worker that supervisor keeps. */
export async function hostStatus(config: RecurConfig, rec: HostRecord): Promise<ServiceStatus[]> {
  const c = hostConfig(config, rec);
  const worker = liveProcess(hostWorkerPid(c));
  return [
    await entry(c, jupyterService, liveProcess(pidFile(c, jupyterService))?.pid ?? null),
    await entry(c, hostService, liveProcess(pidFile(c, hostService))?.pid ?? null),
    { name: 'worker', host: rec.id, pid: worker?.pid ?? null, url: hostService.url(c), healthy: worker !== null },
  ];
}
