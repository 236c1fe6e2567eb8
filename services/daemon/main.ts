import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../config';
import { RecurError } from '../../errors';
import { ownerOnlyUmask } from '../home/owner-only';
import { repoRoot } from '../home/repo-root';
import { initTelemetry } from '../../observability';
import { startDaemon, type Daemon } from './daemon';

/**
 * The daemon's entry point (`recur up` starts it detached, stdout to <home>/logs/daemon.log).
 * It runs until SIGTERM or SIGINT, then stops the worker and lets the event loop drain.
 */
const log = (line: string): void => console.log(`${new Date().toISOString()} ${line}`);

async function main(): Promise<void> {
  ownerOnlyUmask();
  const config = loadConfig();
  const telemetry = initTelemetry({ service: 'recur-daemon', config });
  const workerMain = join(repoRoot(), 'dist', 'services', 'worker', 'main.js');
  if (!existsSync(workerMain)) {
    throw new RecurError(`the worker is not built: ${workerMain} does not exist`, { hint: 'run `npm run build`' });
  }
  const daemon: Daemon = await startDaemon({ config, workerCommand: { cmd: process.execPath, args: [workerMain] }, log });
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping the worker and shutting down`);
    daemon.close().then(() => telemetry.shutdown()).then(
      () => log('daemon stopped'),
      (err: unknown) => {
        log(`shutdown failed: ${(err as Error).stack ?? String(err)}`);
        process.exitCode = 1;
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((err: unknown) => {
  const hint = err instanceof RecurError && err.hint ? `\n  → ${err.hint}` : '';
  log(`daemon failed to start: ${(err as Error).message}${hint}`);
  process.exitCode = 1;
});
