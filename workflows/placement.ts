/*
 * Sends a session's kernel-bound activities to its host (docs/hosts.md), placing it on the first
 * one. Deterministic workflow code: the choice is an activity's answer, and where the session
 * is lives in its state and carry.
 */
import { patched, workflowInfo } from '@temporalio/workflow';
import { DEFAULT_HOST_ID, hostTaskQueue } from './hosts/host-queue';
import { kernelActivities, type SessionActs } from './proxies';
import type { SessionState } from './session-state';

type Acts = SessionActs;
type KernelActs = ReturnType<typeof kernelActivities>;

/** Marks runs that place their session; older histories ran every kernel activity on the workflow's own queue. */
const PLACEMENT_PATCH = 'session-placement';

export function placedActivities(s: SessionState, acts: Acts): Acts {
  if (!patched(PLACEMENT_PATCH)) return acts;
  const seconds = s.input.limits.cellTimeoutSeconds;
  const on = (host: string): KernelActs => kernelActivities(seconds, hostTaskQueue(workflowInfo().taskQueue, host));
  let kernel: Promise<KernelActs> | null = s.host === null ? null : Promise.resolve(on(s.host));
  // Concurrent callers (an operator's interrupt beside the cell) share one placement.
  const placed = (): Promise<KernelActs> => (kernel ??= place(s, acts).then(on, (e: unknown) => {
    kernel = null;
    throw e;
  }));
  return {
    ...acts,
    runCell: async (input) => (await placed()).runCell(input),
    snapshotKernel: async (input) => (await placed()).snapshotKernel(input),
    interruptKernel: async (input) => (await placed()).interruptKernel(input),
    // Never placed, it never had a kernel: any worker finds none to shut down, as before placement existed.
    shutdownKernel: async (input) => (s.host === null ? acts.shutdownKernel(input) : (await placed()).shutdownKernel(input)),
  };
}

/** Asks the registry for a host and logs it; one host alone (the default) leaves the log as it always was. */
async function place(s: SessionState, acts: Acts): Promise<string> {
  const reply = await acts.placeSession({ sessionId: s.id, key: `${s.id}/${s.nextSeq}` });
  const logged = reply.liveHosts > 1 || reply.hostId !== DEFAULT_HOST_ID;
  await s.emit(() => (logged ? [{ type: 'SessionPlaced', ...reply }] : []), () => (s.host = reply.hostId));
  return reply.hostId;
}
