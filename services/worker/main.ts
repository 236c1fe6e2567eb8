import { loadConfig } from '../../config';
import { initTelemetry } from '../../observability';
import { ownerOnlyUmask } from '../home/owner-only';
import { createRecurWorker } from './create-worker';
import { ipcDeltaSink } from './delta-channel';

/** The worker process the daemon supervises: runs session workflows and their activities until SIGTERM. */
async function main(): Promise<void> {
  ownerOnlyUmask();
  const config = loadConfig();
  const telemetry = initTelemetry({ service: 'recur-worker', config });
  const { worker, close } = await createRecurWorker(config, { telemetry, onTextDelta: ipcDeltaSink() });
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => worker.shutdown());
  try {
    await worker.run();
  } finally {
    await close();
    await telemetry.shutdown();
  }
}

main().catch((e: unknown) => {
  console.error('recur worker failed:', e);
  process.exitCode = 1;
});
