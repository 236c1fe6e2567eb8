import type { RecurConfig } from '../../config';
import type { StoredEvent } from '../../schemas';
import { kafkaClient } from '../../config/connections';
import { readSessionLog } from '../../services/projector';

/** Probes until it gives a value (not undefined), 300 ms apart; throws naming `what` after `tries`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, tries = 300): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`gave up waiting for ${what}`);
}

export type TreeLog = Awaited<ReturnType<typeof readSessionLog>>;

/** Whether session `id` of the tree has logged an event of `type`. */
export const logged = (log: TreeLog, id: string, type: StoredEvent['type']) => (log.sessions.get(id) ?? []).some((e) => e.type === type);

/** Reads the tree under `root` until `ready` holds of it; returns that log. */
export function untilLogged(config: RecurConfig, root: string, what: string, ready: (log: TreeLog) => boolean): Promise<TreeLog> {
  const kafka = kafkaClient(config, 'reader', 'test-reader');
  return until(what, async () => {
    const log = await readSessionLog({ kafka, topic: config.kafka.topic, sessionId: root });
    return ready(log) ? log : undefined;
  });
}
