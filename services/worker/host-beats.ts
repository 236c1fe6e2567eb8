import type { Client } from '@temporalio/client';
import { HOST_REGISTRY_WORKFLOW } from '../../activities/place-session';
import { HOST_BEAT_MS } from '../../workflows/hosts/choose-host';
import { hostBeatSignal, hostLeftSignal } from '../../workflows/hosts/host-messages';
import { hostRegistryId } from '../../workflows/hosts/host-queue';

export interface HostBeats {
  /** Stops beating and tells the registry the host left, so nothing more is placed on it. */
  stop(): Promise<void>;
}

/**
 * Tells the task queue's registry, every HOST_BEAT_MS, that this host is live and how many kernels
 * it holds. Through Temporal, which every host of a cluster reaches, wherever it runs.
 */
export function startHostBeats(deps: { client: Client; taskQueue: string; hostId: string; loadedKernels: () => Promise<number>; log: (line: string) => void }): HostBeats {
  const workflowId = hostRegistryId(deps.taskQueue);
  let failing = false;
  const beat = async (): Promise<void> => {
    try {
      const loadedKernels = await deps.loadedKernels();
      await deps.client.workflow.signalWithStart(HOST_REGISTRY_WORKFLOW, {
        workflowId, taskQueue: deps.taskQueue, args: [[]], signal: hostBeatSignal, signalArgs: [{ hostId: deps.hostId, loadedKernels }],
      });
      if (failing) deps.log(`host ${deps.hostId}: beating again`);
      failing = false;
    } catch (e) {
      // A missed beat only makes the host look gone for a while; said once, not every 5 s.
      if (!failing) deps.log(`host ${deps.hostId}: a beat failed (${(e as Error).message}); the registry sees it gone after 15 s without one`);
      failing = true;
    }
  };
  let last = beat();
  const timer = setInterval(() => void (last = last.then(beat)), HOST_BEAT_MS);
  return {
    async stop() {
      clearInterval(timer);
      await last;
      await deps.client.workflow.getHandle(workflowId).signal(hostLeftSignal, { hostId: deps.hostId }).catch(() => undefined);
    },
  };
}
