import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RecurConfig } from '../../config';
import { stackPaths } from '../../config/home-paths';
import { StackError } from '../../errors';
import { liveProcess, startDetached, stopProcess } from '../home/process';
import { portFree } from './ports';
import type { ServiceDef } from './service';

type Log = (line: string) => void;

/** How one service of the stack is started, waited for and stopped, by its pid file. */

// A host's own (`recur host start`): the home's for `local`.
export const pidFile = (config: RecurConfig, s: ServiceDef) => join(stackPaths(config).hostRun, `${s.name}.pid`);
const logFile = (config: RecurConfig, s: ServiceDef) => join(stackPaths(config).hostLogs, `${s.name}.log`);

function logTail(file: string, lines = 12): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export async function checkPorts(config: RecurConfig, s: ServiceDef): Promise<void> {
  for (const { setting, port } of s.ports(config)) {
    if (!(await portFree(config.host, port))) {
      throw new StackError(s.name, `port ${port} on ${config.host} is already in use by another process`,
        `stop that process or choose another port with ${setting}=<port>`);
    }
  }
}

export async function startOne(config: RecurConfig, s: ServiceDef, log: Log): Promise<void> {
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

/**
 * A service `up` does not start (the test stack's S3 server, a host's), under this home's (or host's)
 * pid and log files like the rest; a healthy one already running is kept. `stopService` ends it, as `down` the others.
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
