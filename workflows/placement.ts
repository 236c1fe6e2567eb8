/*
 * Sends a session's kernel-bound activities to its host (docs/hosts.md), placing it on the first
 * one and re-homing it when that host is lost. Deterministic workflow code: each choice is an
 * activity's answer, and where the session is lives in its state and carry.
 */
import { ActivityFailure, TimeoutFailure, patched, workflowInfo } from '@temporalio/workflow';
import type { CellProgress } from '../activities/run-cell';
import { DEFAULT_HOST_ID, hostTaskQueue } from './hosts/host-queue';
import { kernelActivities, type SessionActs } from './proxies';
import type { SessionState } from './session-state';

type Acts = SessionActs;
type KernelActs = ReturnType<typeof kernelActivities>;

/** Marks runs that place their session; older histories ran every kernel activity on the workflow's own queue. */
const PLACEMENT_PATCH = 'session-placement';

/** No worker of the host took the attempt within HOST_LOST_AFTER: the host is gone. */
function hostLost(e: unknown): e is ActivityFailure & { cause: TimeoutFailure } {
  return e instanceof ActivityFailure && e.cause instanceof TimeoutFailure && e.cause.timeoutType === 'SCHEDULE_TO_START';
}

export function placedActivities(s: SessionState, acts: Acts): Acts {
  if (!patched(PLACEMENT_PATCH)) return acts;
  const seconds = s.input.limits.cellTimeoutSeconds;
  const on = (host: string): KernelActs => kernelActivities(seconds, hostTaskQueue(workflowInfo().taskQueue, host));
  let kernel: Promise<KernelActs> | null = s.host === null ? null : Promise.resolve(on(s.host));
  /** The host an activity found gone; the next cell moves the session off it. */
  let lost: string | null = null;
  // Concurrent callers (an operator's interrupt beside the cell) share one placement.
  const placed = (): Promise<KernelActs> => (kernel ??= place(s, acts, null).then(on, (e: unknown) => {
    kernel = null;
    throw e;
  }));
  const rehome = (from: string): Promise<KernelActs> => {
    lost = null;
    return (kernel = place(s, acts, from).then(on, (e: unknown) => {
      kernel = null;
      lost = from;
      throw e;
    }));
  };
  const noting = (e: unknown): never => {
    if (hostLost(e)) lost = s.host;
    throw e;
  };
  return {
    ...acts,
    async runCell(input) {
      const from = lost;
      const k = from !== null ? await rehome(from) : await placed();
      // A cell the worker's steps sent on a host found lost since went with that host's kernel.
      const wentWithHost = from !== null && s.host !== from && input.leftByLoop?.sent === true;
      try {
        return await k.runCell(wentWithHost ? { ...input, sentOnLostHost: true } : input);
      } catch (e) {
        if (!hostLost(e) || s.host === null) throw e;
        // The timeout carries the lost attempts' last heartbeat: whether the cell reached that kernel.
        const sent = (e.cause.lastHeartbeatDetails as CellProgress | undefined)?.sentCellId === input.cellId;
        const from = s.host;
        const k2 = await rehome(from);
        // Back on the same host (its worker was only down a while), the kernel may have lived on:
        // the cell resumes as after any worker restart, asking the kernel what became of it.
        return k2.runCell({ ...input, sentOnLostHost: sent && s.host !== from }).catch(noting);
      }
    },
    // A snapshot is never taken elsewhere (a fresh kernel's would replace the real one): it fails, and the next cell re-homes.
    snapshotKernel: async (input) => (await placed()).snapshotKernel(input).catch(noting),
    // Steps run only once placed (workflows/worker-steps.ts); steps lost with their host are taken back elsewhere, and the next cell re-homes.
    runSteps: async (input) => (await placed()).runSteps(input).catch(noting),
    stopSteps: async (input) => (await placed()).stopSteps(input),
    interruptKernel: async (input) => (await placed()).interruptKernel(input).catch(noting),
    async shutdownKernel(input) {
      // Never placed, it never had a kernel: any worker finds none to shut down, as before placement existed.
      if (s.host === null) return acts.shutdownKernel(input);
      try {
        await (await placed()).shutdownKernel(input);
      } catch (e) {
        // The kernel died with its host: nothing is left to shut down.
        if (!hostLost(e)) throw e;
      }
    },
  };
}

/**
 * Asks the registry for a host and logs it. A first placement in a cluster of one host (the
 * default) leaves the log as it always was; a move off a lost host is always logged.
 */
async function place(s: SessionState, acts: Acts, lostHost: string | null): Promise<string> {
  const reply = await acts.placeSession({ sessionId: s.id, key: `${s.id}/${s.nextSeq}`, exclude: lostHost });
  const logged = lostHost !== null || reply.liveHosts > 1 || reply.hostId !== DEFAULT_HOST_ID;
  await s.emit(() => (logged ? [{ type: 'SessionPlaced', ...reply }] : []), () => (s.host = reply.hostId));
  return reply.hostId;
}
