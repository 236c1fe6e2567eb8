import type { Kafka, Producer } from 'kafkajs';
import { createEventLogActivities, createEventLogProducer, type EventLogActivities } from '../activities/event-log';
import { ensureTopic } from '../activities/event-topic';
import { encodeEventBatch, verifyChain, ZERO_HASH } from '../schemas';
import { readSessionLog } from '../services/projector';
import { kafkaClient } from '../config/connections';
import { stackPaths } from '../config/home-paths';
import { homeSigner } from '../services/home/log-keys';
import { newSessionId } from './bench-worker';
import { size, type BenchContext, type Benchmark } from './benchmark';
import { barChart } from './chart';
import { rawConsume, rawProduce } from './raw-kafka';
import { compare, type BenchResult } from './report';
import { sessionEvents } from './sample-events';
import { summarize } from './stats';

const TS = Date.UTC(2026, 0, 1);

/** Appends `count` events of a new session through appendEvents in batches of `batch`; events/s. */
async function appendRate(log: EventLogActivities, count: number, batch: number): Promise<number> {
  const sessionId = newSessionId();
  const items = sessionEvents(count, 0, TS);
  let prevHash = ZERO_HASH;
  const t0 = performance.now();
  for (let i = 0; i < count; i += batch) {
    const res = await log.appendEvents({ sessionId, rootId: sessionId, parentId: null, fromSeq: i, prevHash, events: items.slice(i, i + batch) });
    prevHash = res.headHash;
  }
  return count / ((performance.now() - t0) / 1000);
}

/** The same bytes (encoded before the clock starts) through a producer with the same settings; events/s. */
async function rawRate(producer: Producer, topic: string, count: number, batch: number): Promise<number> {
  const sessionId = newSessionId();
  const { values } = encodeEventBatch({ sessionId, rootId: sessionId, parentId: null, fromSeq: 0, prevHash: ZERO_HASH, events: sessionEvents(count, 0, TS) });
  const t0 = performance.now();
  await rawProduce(producer, topic, sessionId, values, batch);
  return count / ((performance.now() - t0) / 1000);
}

/** A new 4-partition topic with the event topic's settings. */
export async function newTopic(kafka: Kafka, name: string): Promise<string> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await ensureTopic(admin, name, 4);
  } finally {
    await admin.disconnect();
  }
  return name;
}

/** A root and nine children sharing `total` events, written through appendEvents in batches of 50. */
async function writeTree(log: EventLogActivities, total: number): Promise<string> {
  const root = newSessionId();
  const ids = [root, ...Array.from({ length: 9 }, (_, i) => `${root}/c${i}`)];
  for (const [k, sessionId] of ids.entries()) {
    const count = Math.floor(total / ids.length) + (k < total % ids.length ? 1 : 0);
    const items = sessionEvents(count, 0, TS);
    let prevHash = ZERO_HASH;
    for (let i = 0; i < count; i += 50) {
      const parentId = k === 0 ? null : root;
      prevHash = (await log.appendEvents({ sessionId, rootId: root, parentId, fromSeq: i, prevHash, events: items.slice(i, i + 50) })).headHash;
    }
  }
  return root;
}

async function replayRates(ctx: BenchContext, kafka: Kafka, producer: Producer): Promise<BenchResult> {
  const total = size(ctx, 100_000, 10_000);
  const topic = await newTopic(kafka, `bench.replay.${newSessionId()}`);
  ctx.log(`event-log: writing a ${total}-event session tree`);
  const root = await writeTree(createEventLogActivities({ kafka, topic, producer, signer: homeSigner(stackPaths(ctx.config).keys) }), total);
  const recur: number[] = [];
  const raw: number[] = [];
  let bytes = 0;
  for (let rep = 0; rep < size(ctx, 3, 2); rep++) {
    let t0 = performance.now();
    const read = await readSessionLog({ kafka, topic, sessionId: root, timeoutMs: 600_000 });
    const verdict = verifyChain(read.events);
    if (!verdict.ok || read.events.length !== total) throw new Error(`replay read ${read.events.length} of ${total} events, chain ${verdict.ok ? 'ok' : verdict.fault}`);
    recur.push(total / ((performance.now() - t0) / 1000));
    t0 = performance.now();
    const got = await rawConsume(kafka, topic);
    if (got.records !== total) throw new Error(`raw consume read ${got.records} of ${total} records`);
    raw.push(total / ((performance.now() - t0) / 1000));
    bytes = got.bytes;
  }
  return compare({
    name: 'event-log/replay', title: `Replay of a ${total / 1000}k-event session tree (readSessionLog + verifyChain)`, unit: 'events/s', better: 'higher',
    subject: { label: 'readSessionLog + verifyChain', samples: recur },
    baseline: { label: 'raw kafkajs consume, no decoding', samples: raw },
    limits: 'Avro decoding and a SHA-256 per event in one Node thread; fetches of the 4-partition topic',
    details: { events: total, sessions: 10, meanEventBytes: Math.round(bytes / total) },
  });
}

export const eventLog: Benchmark = {
  name: 'event-log',
  async run(ctx) {
    const kafka = kafkaClient(ctx.config, 'admin', 'recur-bench');
    const topic = await newTopic(kafka, `bench.append.${newSessionId()}`);
    const recurProducer = createEventLogProducer(kafka);
    const rawProducer = createEventLogProducer(kafka);
    await Promise.all([recurProducer.connect(), rawProducer.connect()]);
    const log = createEventLogActivities({ kafka, topic, producer: recurProducer, signer: homeSigner(stackPaths(ctx.config).keys) });
    const results: BenchResult[] = [];
    try {
      const chart: Array<{ label: string; values: number[] }> = [];
      for (const [batch, count] of [[1, size(ctx, 300, 60)], [50, size(ctx, 5_000, 1_000)]] as const) {
        ctx.log(`event-log: append, batch ${batch}, ${count} events a sample`);
        const recur: number[] = [];
        const raw: number[] = [];
        for (let rep = 0; rep < size(ctx, 5, 3); rep++) {
          recur.push(await appendRate(log, count, batch));
          raw.push(await rawRate(rawProducer, topic, count, batch));
        }
        chart.push({ label: `BATCH ${batch}`, values: [summarize(recur).median, summarize(raw).median] });
        results.push(compare({
          name: `event-log/append-batch-${batch}`, title: `Event append throughput, batch ${batch}`, unit: 'events/s', better: 'higher',
          subject: { label: 'appendEvents (Avro + hash chain)', samples: recur },
          baseline: { label: 'raw kafkajs produce of the same bytes', samples: raw },
          limits: batch === 1
            ? 'one acks=all, idempotent produce round trip per event (max one request in flight)'
            : 'Avro encoding + a SHA-256 per event (~0.1 ms each, in the one Node thread) on top of the same produce requests',
          details: { eventsPerSample: count },
        }));
      }
      ctx.plot('event-append.png', barChart({ title: 'EVENT APPEND THROUGHPUT', yLabel: 'EVENTS/S', legend: ['APPENDEVENTS', 'RAW KAFKAJS'], groups: chart }));
      results.push(await replayRates(ctx, kafka, recurProducer));
    } finally {
      await Promise.all([recurProducer.disconnect(), rawProducer.disconnect()]);
    }
    return results;
  },
};
