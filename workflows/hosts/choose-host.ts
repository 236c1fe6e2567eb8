/** Which host a new session goes to (docs/hosts.md). Pure: the registry workflow and unit tests call it. */

/** What the registry knows of one host: its last beat, and the sessions it was given since. */
export interface HostLoad {
  hostId: string;
  /** Kernels its Jupyter server held at its last beat. */
  loadedKernels: number;
  /** Workflow times (ms) of the sessions placed on it whose kernels its last beat may not show yet. */
  placed: number[];
  /** Workflow time of its last beat (ms). */
  seenAt: number;
}

/** A host beats every HOST_BEAT_MS; one silent for HOST_LIVE_MS (three beats missed) is not live. */
export const HOST_BEAT_MS = 5_000;
export const HOST_LIVE_MS = 15_000;

export const isLive = (h: HostLoad, now: number): boolean => now - h.seenAt <= HOST_LIVE_MS;

/**
 * The host's load after a beat counting `loadedKernels`. A session placed within the last beat
 * interval may have no kernel yet (its first cell starts it), so it still counts on top of the
 * beat: dropped at once, two sessions placed either side of a beat went to the same host.
 */
export const afterBeat = (prev: HostLoad | undefined, hostId: string, loadedKernels: number, now: number): HostLoad =>
  ({ hostId, loadedKernels, placed: (prev?.placed ?? []).filter((at) => now - at < HOST_BEAT_MS), seenAt: now });

/**
 * The live host with the fewest kernels, counting the sessions placed since its beat; ties go to
 * the lowest id, so the choice is the same on every replay. Null when no host is live.
 */
export function chooseHost(hosts: readonly HostLoad[], now: number): HostLoad | null {
  let best: HostLoad | null = null;
  for (const h of hosts) {
    if (!isLive(h, now)) continue;
    const load = h.loadedKernels + h.placed.length;
    const bestLoad = best === null ? Infinity : best.loadedKernels + best.placed.length;
    if (load < bestLoad || (load === bestLoad && best !== null && h.hostId < best.hostId)) best = h;
  }
  return best;
}
