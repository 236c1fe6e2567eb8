import { join } from 'node:path';
import { loadConfig } from '../../config';
import { createWorkerSupervisor } from '../daemon/worker-supervisor';
import { ownerOnlyUmask } from '../home/owner-only';
import { hostWorkerLog, hostWorkerPid } from './paths';
import { REPLACES_ENV, workerIdentity } from '../worker/lost-attempts';

/**
 * A host other than `local` (docs/hosts.md): keeps its worker running, restarting it after any
 * exit and naming a dead one to its successor, as the daemon does for `local`'s. Stops it on SIGTERM.
 */
async function main(): Promise<void> {
  ownerOnlyUmask();
  const config = loadConfig();
  const supervisor = createWorkerSupervisor({
    command: { cmd: process.execPath, args: [join(__dirname, '..', 'worker', 'main.js')] },
    env: process.env,
    logFile: hostWorkerLog(config),
    pidFile: hostWorkerPid(config),
    successorEnv: (pid) => ({ [REPLACES_ENV]: workerIdentity(pid) }),
    log: (line) => console.log(`${new Date().toISOString()} ${line}`),
  });
  supervisor.start();
  await new Promise((resolve) => {
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, resolve);
  });
  await supervisor.stop();
}

main().catch((e: unknown) => {
  console.error('recur host failed:', e);
  process.exitCode = 1;
});
