import type { Kafka } from 'kafkajs';
import { createEventLogActivities, createEventLogProducer, encodeForLog, type EventLogActivities } from '../activities/event-log';
import { openFencedLog } from '../activities/fenced-log';
import type { KernelClient } from '../activities/kernel';
import { createModel } from '../activities/model';
import { kafkaClient } from '../config/connections';
import { stackPaths } from '../config/home-paths';
import { homeSigner } from '../services/home/log-keys';
import { readSessionLog } from '../services/projector';
import { verifyChain, ZERO_HASH, type EventSigner } from '../schemas';
import { runBareLoop } from './bare-loop';
import { benchKernels } from './bench-kernels';
import { newSessionId, py, scriptedModel } from './bench-worker';
import { size, type Benchmark } from './benchmark';
import { newTopic } from './event-log';
import { compare } from './report';
import { stepEvents } from './sample-events';
import { summarize } from './stats';

const TASK = 'benchmark session';

interface Parts {
  kernels: KernelClient;
  kafka: Kafka;
  topic: string;
  signer: EventSigner;
  log: EventLogActivities;
  modelFor(): ReturnType<typeof createModel>;
}

/** The bare loop with the step's events (the last cell's end, the reply, its request) in one append through the log's own writer. */
async function withAppend(p: Parts): Promise<number[]> {
  const sessionId = newSessionId();
  let head = { nextSeq: 0, headHash: ZERO_HASH };
  const ts = Date.now();
  return runBareLoop({
    kernels: p.kernels, model: p.modelFor(),
    beforeCell: async (step) => {
      head = await p.log.appendEvents({
        sessionId, rootId: sessionId, parentId: null, fromSeq: head.nextSeq, prevHash: head.headHash, events: stepEvents(step, ts).map((event) => ({ ts, event })),
      });
    },
  }, sessionId, TASK);
}

/**
 * The same with the append in a transaction of the session's own, through the writer the steps a
 * worker runs use (activities/fenced-log.ts). Then a second writer of the session starts (what a
 * later attempt does), which must fence the first, and the log's reader must read back every
 * event with its chain whole: the premises of that design, checked each round.
 */
async function withFencedAppend(p: Parts): Promise<{ steps: number[]; fenceMs: number; readBackMs: number }> {
  const sessionId = newSessionId();
  const deps = { kafka: p.kafka, topic: p.topic };
  const writer = await openFencedLog(deps, sessionId);
  let head = { nextSeq: 0, headHash: ZERO_HASH };
  const ts = Date.now();
  const batch = (step: number) => encodeForLog({
    sessionId, rootId: sessionId, parentId: null, fromSeq: head.nextSeq, prevHash: head.headHash, events: stepEvents(step, ts).map((event) => ({ ts, event })),
  }, p.signer);
  const steps = await runBareLoop({ kernels: p.kernels, model: p.modelFor(), beforeCell: async (step) => void (head = await writer.append(batch(step))) }, sessionId, TASK);
  const t0 = performance.now();
  const successor = await openFencedLog(deps, sessionId);
  const fenceMs = performance.now() - t0;
  try {
    const refused = await writer.append(batch(0)).then(() => false, () => true);
    if (!refused) throw new Error(`the first writer of ${sessionId} could still append after a successor started`);
  } finally {
    await Promise.all([writer.close(), successor.close()]);
  }
  const t1 = performance.now();
  const read = await readSessionLog({ kafka: p.kafka, topic: p.topic, sessionId, timeoutMs: 60_000 });
  const readBackMs = performance.now() - t1;
  const verdict = verifyChain(read.events);
  if (read.events.length !== head.nextSeq || !verdict.ok) {
    throw new Error(`read back ${read.events.length} of ${head.nextSeq} fenced events, chain ${verdict.ok ? 'ok' : verdict.fault}`);
  }
  return { steps, fenceMs, readBackMs };
}

/**
 * What each part of a durable step costs outside Temporal, against the bare loop in the same run:
 * the step's one append through the log's writer, and the same append in a Kafka transaction of
 * the session's own, which a successor's writer fences. A step the worker runs is about these
 * parts (docs/performance.md, "Steps the worker runs"); the durable session's own step is
 * step-overhead's.
 */
export const stepParts: Benchmark = {
  name: 'step-parts',
  async run(ctx) {
    const kafka = kafkaClient(ctx.config, 'admin', 'recur-bench');
    const topic = await newTopic(kafka, `bench.steps.${newSessionId()}`);
    const signer = homeSigner(stackPaths(ctx.config).keys);
    const producer = createEventLogProducer(kafka);
    await producer.connect();
    const k = await benchKernels(ctx.config);
    const steps = size(ctx, 60, 8);
    const replies = [...Array.from({ length: steps + 1 }, (_, i) => py(`x${i} = sum(range(100))\nprint(x${i})`)), 'done'];
    const parts: Parts = {
      kernels: k.kernels, kafka, topic, signer, log: createEventLogActivities({ kafka, topic, producer, signer }),
      modelFor: () => createModel(scriptedModel(ctx.config, replies), process.env, { scriptedDirs: ctx.config.agent.scriptedDirs }),
    };
    const bare: number[] = [];
    const appended: number[] = [];
    const fenced: number[] = [];
    const fences: number[] = [];
    const readBacks: number[] = [];
    try {
      for (let round = 0; round < size(ctx, 3, 1); round++) {
        ctx.log(`step-parts: round ${round + 1}, ${steps} steps each way`);
        // The first step of each loop starts its kernel and is left out, as in step-overhead.
        bare.push(...(await runBareLoop({ kernels: k.kernels, model: parts.modelFor() }, newSessionId(), TASK)).slice(1));
        appended.push(...(await withAppend(parts)).slice(1));
        const f = await withFencedAppend(parts);
        fenced.push(...f.steps.slice(1));
        fences.push(f.fenceMs);
        readBacks.push(f.readBackMs);
      }
    } finally {
      await k.close();
      await producer.disconnect();
    }
    const baseline = { label: 'bare in-process loop', samples: bare };
    return [
      compare({
        name: 'step-parts/append', title: 'Bare loop plus the step\'s one append (the log\'s writer)', unit: 'ms/step', better: 'lower',
        subject: { label: 'bare loop + one acks=all append a step', samples: appended }, baseline,
        limits: 'one Kafka produce a step, acknowledged by every in-sync replica; encoding and an Ed25519 seal per event',
      }),
      compare({
        name: 'step-parts/fenced-append', title: 'Bare loop plus the step\'s one append in a transaction of the session\'s own', unit: 'ms/step', better: 'lower',
        subject: { label: 'bare loop + one transactional append a step', samples: fenced }, baseline,
        limits: 'the append plus four more broker round trips a step (the partition joins the transaction; the commit; kafkajs looks the transaction\'s coordinator up before each)',
        details: { fenceMsMedian: summarize(fences).median, readBackMsMedian: summarize(readBacks).median, stepsPerLoop: steps },
      }),
    ];
  },
};
