import { condition, setHandler } from '@temporalio/workflow';
import { hostBeatSignal, placeSessionsUpdate } from '../../../workflows/hosts/host-messages';

/**
 * A host registry of another shape than today's (no quiet timer: it waits for ever), as a run
 * begun before a careless deploy, or one the SDK cannot replay, looks to today's worker: replaying
 * its history fails as nondeterministic (tests/unit/host-registry.test.ts).
 */
export async function hostRegistryWorkflow(): Promise<void> {
  setHandler(hostBeatSignal, () => undefined);
  setHandler(placeSessionsUpdate, (asks) => asks.map((a) => ({ hostId: a.asker, loadedKernels: 0, liveHosts: 1 })));
  await condition(() => false);
}
