/*
 * The registry of a task queue's hosts: their beats (loaded kernels) and the placement of new
 * sessions. Deterministic workflow code: it keeps only what signals and updates told it, and
 * reads time from the workflow clock.
 */
import { allHandlersFinished, condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import { afterBeat, chooseHost, isLive, type HostLoad } from './choose-host';
import { getHostsQuery, hostBeatSignal, hostLeftSignal, placeSessionsUpdate, type PlaceReply, type PlaceRequest } from './host-messages';

/** Beats and placement batches per run before it continues as new: each is a few history events. */
const CHANGES_PER_RUN = 200;
/** With no beat for this long every host is gone; the registry ends and the next beat starts it again. */
const QUIET_END = '1 minute';
/** Answers kept for retried asks: more than a burst of spawns, few enough to stay small. */
const ANSWERS_KEPT = 1_000;

export async function hostRegistryWorkflow(carried: HostLoad[] = []): Promise<void> {
  const hosts = new Map(carried.map((h) => [h.hostId, h]));
  const answered = new Map<string, PlaceReply>();
  let beats = 0;
  let changes = 0;
  const place = ({ key, asker, exclude }: PlaceRequest, now: number): PlaceReply => {
    const before = answered.get(key);
    if (before) return before;
    if (!hosts.has(asker) || !isLive(hosts.get(asker)!, now)) hosts.set(asker, { hostId: asker, loadedKernels: 0, placed: [], seenAt: now });
    // A lost host that asks is back (its worker runs this placement): on a lone host whose worker
    // was down past HOST_LOST_AFTER (a restart, `recur down` then `up`), it is the one place to go.
    const live = [...hosts.values()].filter((h) => isLive(h, now) && (h.hostId !== exclude || h.hostId === asker));
    // The asker is live and never excluded: there is always one.
    const chosen = chooseHost(live, now)!;
    const reply = { hostId: chosen.hostId, loadedKernels: chosen.loadedKernels + chosen.placed.length, liveHosts: live.length };
    chosen.placed.push(now);
    answered.set(key, reply);
    if (answered.size > ANSWERS_KEPT) answered.delete(answered.keys().next().value!);
    return reply;
  };
  setHandler(hostBeatSignal, ({ hostId, loadedKernels }) => {
    hosts.set(hostId, afterBeat(hosts.get(hostId), hostId, loadedKernels, Date.now()));
    beats++;
    changes++;
  });
  setHandler(hostLeftSignal, ({ hostId }) => void hosts.delete(hostId));
  setHandler(placeSessionsUpdate, (asks) => {
    changes++;
    const now = Date.now();
    return asks.map((ask) => place(ask, now));
  });
  setHandler(getHostsQuery, () => ({ now: Date.now(), hosts: [...hosts.values()] }));
  for (;;) {
    const seen = beats;
    if (!(await condition(() => beats !== seen, QUIET_END))) break;
    if (changes >= CHANGES_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      const now = Date.now();
      await continueAsNew<typeof hostRegistryWorkflow>([...hosts.values()].filter((h) => isLive(h, now)));
    }
  }
  await condition(allHandlersFinished);
}
