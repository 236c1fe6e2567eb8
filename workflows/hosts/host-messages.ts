import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { HostLoad } from './choose-host';

export interface HostBeat {
  hostId: string;
  loadedKernels: number;
}

export interface PlaceRequest {
  sessionId: string;
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
/** An update: the caller needs the choice, and the registry, deciding one at a time, spreads a burst of sessions. */
export const placeSessionUpdate = defineUpdate<PlaceReply, [PlaceRequest]>('placeSession');
export const getHostsQuery = defineQuery<{ now: number; hosts: HostLoad[] }>('getHosts');
