import type { Kafka, Producer } from 'kafkajs';
import { createEventLogActivities, createEventLogProducer, type EventLogActivities } from '../activities/event-log';
import type { RecurConfig } from '../config';
import { ZERO_HASH, type EventBatchInput, type RecurEventInput } from '../schemas';
import { kafkaClient } from '../config/connections';
import { stackPaths } from '../config/home-paths';
import { homeSigner } from '../services/home/log-keys';
import { fileOffsetIndex, treeStartMarker } from '../services/projector';
import { sessionEvents } from './sample-events';

type Item = EventBatchInput['events'][number];

/** The writer a worker has: the stack's topic, the home's signing key, the offset index the daemon reads by. */
export interface TreeWriter {
  log: EventLogActivities;
  close(): Promise<void>;
}

export async function treeWriter(config: RecurConfig): Promise<TreeWriter> {
  const kafka: Kafka = kafkaClient(config, 'writer', 'viewer-tree');
  const producer: Producer = createEventLogProducer(kafka);
  await producer.connect();
  const topic = config.kafka.topic;
  const log = createEventLogActivities({
    kafka, topic, producer, signer: homeSigner(stackPaths(config).keys),
    beforeTreeStarts: treeStartMarker(kafka, topic, fileOffsetIndex(stackPaths(config).logIndex)),
  });
  return { log, close: () => producer.disconnect() };
}

const started = (name: string, depth: number, task: string): RecurEventInput => ({
  type: 'SessionStarted', task, name, model: 'bench-model', depth, maxDepth: 2, maxTurns: 50, cellTimeoutSeconds: 600,
});

/**
 * A finished tree of `total` events (a root and `children` sub-agents, model calls and cells
 * with sizes like a working session's, each ModelCalled costing $0.0012) written as a worker
 * writes one: chained, signed, in batches; the root spawns every child first and collects them last.
 */
export async function writeViewerTree(log: EventLogActivities, root: string, total: number, children: number, t0: number): Promise<void> {
  const kids = Array.from({ length: children }, (_, i) => `${root}/worker${i}`);
  const steps = total - (2 + 2 * children) - 2 * children;
  const share = (k: number) => Math.floor(steps / (children + 1)) + (k < steps % (children + 1) ? 1 : 0);
  let ts = t0;
  const stamp = (events: RecurEventInput[]): Item[] => events.map((event) => ({ ts: ts++, event }));
  const work = (n: number) => sessionEvents(n, 0, t0).map((e) => e.event);
  const head = stamp([
    started('root', 0, `synthetic tree of ${total} events`),
    ...work(share(0)),
    ...kids.map((childId, i): RecurEventInput => ({ type: 'SubagentSpawned', childId, name: `worker${i}`, task: `part ${i}`, model: 'bench-model' })),
  ]);
  const rootEnd = await append(log, root, root, null, 0, ZERO_HASH, head);
  for (const [i, kid] of kids.entries()) {
    const body = stamp([started(`worker${i}`, 1, `part ${i}`), ...work(share(i + 1)), { type: 'SessionCompleted', answer: `part ${i} done` }]);
    await append(log, root, kid, root, 0, ZERO_HASH, body);
  }
  const tail = stamp([
    ...kids.map((childId, i): RecurEventInput => ({ type: 'SubagentCompleted', childId, status: 'completed', answer: `part ${i} done`, error: null })),
    { type: 'SessionCompleted', answer: 'all parts done' },
  ]);
  await append(log, root, root, null, rootEnd.nextSeq, rootEnd.headHash, tail);
}

async function append(log: EventLogActivities, rootId: string, sessionId: string, parentId: string | null, fromSeq: number, prevHash: string, items: Item[]) {
  let at = { nextSeq: fromSeq, headHash: prevHash };
  for (let i = 0; i < items.length; i += 200) {
    const r = await log.appendEvents({ sessionId, rootId, parentId, fromSeq: at.nextSeq, prevHash: at.headHash, events: items.slice(i, i + 200) });
    at = { nextSeq: r.nextSeq, headHash: r.headHash };
  }
  return at;
}
