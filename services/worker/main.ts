import { loadConfig } from '../../config';
import { initTelemetry } from '../../observability';
import { ownerOnlyUmask } from '../home/owner-only';
import { createRecurWorker } from './create-worker';
import { ipcDeltaSink } from './delta-channel';
import { REPLACES_ENV } from './lost-attempts';
import { prebuiltWorkflowBundle } from './workflow-bundle';

/** The worker process the daemon supervises: runs session workflows and their activities until SIGTERM. */
async function main(): Promise<void> {
  ownerOnlyUmask();
  const config = loadConfig();
  const telemetry = initTelemetry({ service: 'recur-worker', config });
  const { worker, close, endLostAttempts } = await createRecurWorker(config, {
    telemetry, onTextDelta: ipcDeltaSink(), workflowBundle: prebuiltWorkflowBundle(telemetry.spanProcessor !== null),
  });
  // Every signal, not the first only: a stop signals the process group and the supervisor signals again,
  // and a second SIGTERM left to its default would kill the worker before it leaves the host registry.
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => worker.shutdown());
  try {
    const running = worker.run();
    // The daemon names the worker this one replaces when that one died; its attempts are retried now, not at their heartbeat timeout.
    const dead = process.env[REPLACES_ENV];
    if (dead) {
      endLostAttempts(dead).then(
        (lost) => console.log(`ended ${lost.length} attempt(s) of ${dead}: ${lost.map((a) => `${a.workflowId} ${a.activityType}`).join(', ') || 'none'}`),
        (e: unknown) => console.error(`could not end the attempts of ${dead} (they end at their heartbeat timeout):`, e),
      );
    }
    await running;
  } finally {
    await close();
    await telemetry.shutdown();
  }
}

main().catch((e: unknown) => {
  console.error('recur worker failed:', e);
  process.exitCode = 1;
});
