import type { DeltaFrame } from '../daemon/api-types';

export type DeltaSink = (delta: Omit<DeltaFrame, 'kind'>) => void;

/**
 * Model text as it streams, to the daemon that supervises this worker, over the IPC channel it
 * opened: deltas travel beside the event log, never in it. A worker started without a channel (by
 * hand, or in a test) has nobody to tell and gets no sink.
 */
export function ipcDeltaSink(proc: NodeJS.Process = process): DeltaSink | undefined {
  const send = proc.send?.bind(proc);
  if (!send) return undefined;
  return (delta) => {
    if (!proc.connected) return;
    // Best-effort: a send that fails (the daemon is going away) is dropped like a delta nobody reads.
    send({ kind: 'delta', ...delta } satisfies DeltaFrame, undefined, undefined, () => undefined);
  };
}
