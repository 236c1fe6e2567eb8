import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { HostLoad } from './choose-host';

export interface HostBeat {
  hostId: string;
  loadedKernels: number;
}

export interface PlaceRequest {
  /** The session's id and seq at the ask: a retried ask is answered as the first was. */
  key: string;
  /** The host whose worker asks: live by asking, so a session is placed even before any beat has landed. */
  asker: string;
  /** A host the session was just lost with: not chosen, even while its last beat is still fresh. */
  exclude?: string | null;
}

export interface PlaceReply {
  hostId: string;
  /** Its kernels at the choice, placements since its beat included. */
  loadedKernels: number;
  /** Live hosts the choice was made among. */
  liveHosts: number;
}

/** A signal: a beat needs no answer, and a host that misses one is only later in being seen. */
export const hostBeatSignal = defineSignal<[HostBeat]>('hostBeat');
/** A host that stops on purpose leaves at once rather than after HOST_LIVE_MS. */
export const hostLeftSignal = defineSignal<[{ hostId: string }]>('hostLeft');
/**
 * An update: callers need their choices. A worker sends the asks that wait on it as one batch, so
 * a burst of spawns is a few updates (Temporal bounds those in flight on one workflow), and the
 * registry decides them one at a time, so the burst spreads over the hosts.
 */
export const placeSessionsUpdate = defineUpdate<PlaceReply[], [PlaceRequest[]]>('placeSessions');
export const getHostsQuery = defineQuery<{ now: number; hosts: HostLoad[] }>('getHosts');
