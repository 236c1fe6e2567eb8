import { loadConfig } from '../../config';
import { createRecurWorker } from './create-worker';

/** The worker process the daemon supervises: runs session workflows and their activities until SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig();
  const { worker, close } = await createRecurWorker(config);
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => worker.shutdown());
  try {
    await worker.run();
  } finally {
    await close();
  }
}

main().catch((e: unknown) => {
  console.error('recur worker failed:', e);
  process.exitCode = 1;
});
