import { randomUUID } from 'node:crypto';
import { Partitioners } from 'kafkajs';
import { createEventLogActivities, createEventLogProducer } from '../../activities/event-log';
import { alterTopicSettings, ensureTopic, ensureTopicSettings, topicSettings } from '../../activities/event-topic';
import { loadConfig } from '../../config';
import { ZERO_HASH, encodeEventBatch, verifyChain, type RecurEventInput } from '../../schemas';
import { kafkaClient } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { homeSigner } from '../../services/home/log-keys';
import { followSessionLog, readSessionLog, type FollowItem } from '../../services/projector';

const config = loadConfig();
// The admin: it creates this test's own topic, which no other principal has rights on.
const kafka = kafkaClient(config, 'admin', 'event-log-test');
const topic = `recur-events-test-${randomUUID()}`;
const producer = createEventLogProducer(kafka);
const { appendEvents } = createEventLogActivities({ kafka, topic, producer, signer: homeSigner(stackPaths(config).keys) });

const started = (name: string, depth: number, parentId: string | null = null): RecurEventInput => ({
  type: 'SessionStarted', task: `task of ${name}`, name, model: 'scripted', depth, maxDepth: 2, maxTurns: 5, cellTimeoutSeconds: 30, parentId,
});
const cell: RecurEventInput = { type: 'CellRequested', cellId: 'c1', code: 'print(2+2)' };
const ran: RecurEventInput = { type: 'CellExecuted', requestId: 'x/1', code: 'print(2+2)', status: 'ok', outputs: '4\n', durationMs: 9 };
const done = (answer: string): RecurEventInput => ({ type: 'SessionCompleted', answer });
const at = (events: RecurEventInput[], t0 = 1_700_000_000_000) => events.map((event, i) => ({ ts: t0 + i, event }));
const root = (id: string) => ({ sessionId: id, rootId: id, parentId: null });
const childOf = (parent: string, name: string) => ({ sessionId: `${parent}/${name}`, rootId: parent.split('/')[0], parentId: parent });

beforeAll(async () => {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await ensureTopic(admin, topic, 3);
    await ensureTopic(admin, topic, 3); // a second call finds the topic and is a no-op
  } finally {
    await admin.disconnect();
  }
});
afterAll(() => producer.disconnect());

describe('event log on Kafka', () => {
  test('appends a session tree, reads it back in order with a valid chain, and drops a retried batch', async () => {
    const id = `s-${randomUUID()}`;
    const first = { ...root(id), fromSeq: 0, prevHash: ZERO_HASH, events: at([started('root', 0), cell]) };
    const a = await appendEvents(first);
    expect(a).toMatchObject({ nextSeq: 2, eventIds: [`${id}/0`, `${id}/1`] });
    const b = await appendEvents({ ...root(id), fromSeq: a.nextSeq, prevHash: a.headHash, events: at([ran, done('4')], 1_700_000_001_000) });
    const c = await appendEvents({ ...childOf(id, 'helper'), fromSeq: 0, prevHash: ZERO_HASH, events: at([started('helper', 1, id), done('ok')]) });
    await appendEvents({ ...root(`${id}-other`), fromSeq: 0, prevHash: ZERO_HASH, events: at([started('root', 0)]) });

    const retried = await appendEvents(first); // what a retried activity does
    expect(retried).toEqual(a);

    const log = await readSessionLog({ kafka, topic, sessionId: id });
    expect(log.events.map((e) => e.eventId)).toEqual([`${id}/0`, `${id}/1`, `${id}/2`, `${id}/3`, `${id}/helper/0`, `${id}/helper/1`]);
    expect(log.events.map((e) => e.type)).toEqual(['SessionStarted', 'CellRequested', 'CellExecuted', 'SessionCompleted', 'SessionStarted', 'SessionCompleted']);
    expect(log.duplicates).toBe(2);
    expect(log.conflicts).toEqual([]);
    expect(log.undecodable).toEqual([]);
    expect(verifyChain(log.events)).toEqual({
      ok: true,
      heads: { [id]: { nextSeq: 4, headHash: b.headHash }, [`${id}/helper`]: { nextSeq: 2, headHash: c.headHash } },
    });

    const alone = await readSessionLog({ kafka, topic, sessionId: id, descendants: false });
    expect(alone.events.map((e) => e.eventId)).toEqual([`${id}/0`, `${id}/1`, `${id}/2`, `${id}/3`]);
  });

  test('names a tampered record, reports garbage and a conflicting copy, and still returns the rest', async () => {
    const id = `t-${randomUUID()}`;
    const { values } = encodeEventBatch({ ...root(id), fromSeq: 0, prevHash: ZERO_HASH, events: at([started('root', 0), cell, ran, done('forty-two')]) });
    const tampered = Buffer.from(values[3]);
    tampered[tampered.indexOf('forty-two')] = 'F'.charCodeAt(0);

    const raw = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await raw.connect();
    try {
      const send = (value: Buffer) => raw.send({ topic, messages: [{ key: id, value }] });
      for (const v of values.slice(0, 3)) await send(v);
      await send(Buffer.from('definitely not avro'));
      await send(tampered);
      await send(values[3]); // the genuine record, arriving after the forged one
    } finally {
      await raw.disconnect();
    }

    const log = await readSessionLog({ kafka, topic, sessionId: id });
    expect(log.events.map((e) => e.eventId)).toEqual([`${id}/0`, `${id}/1`, `${id}/2`, `${id}/3`]);
    expect(log.undecodable).toEqual([
      { partition: expect.any(Number), offset: expect.any(String), key: id, reason: 'not Avro single-object encoded (missing C3 01 header)' },
    ]);
    expect(log.conflicts).toMatchObject([{ eventId: `${id}/3` }]);
    expect(verifyChain(log.events)).toMatchObject({ ok: false, eventId: `${id}/3`, fault: 'hash-mismatch' });
  });

  test('follows a session tree live, in log order, until the caller stops', async () => {
    const id = `f-${randomUUID()}`;
    const abort = new AbortController();
    const seen: FollowItem[] = [];
    const ids = () => seen.map((i) => (i.kind === 'event' ? i.event.eventId : i.kind));
    const following = (async () => {
      for await (const item of followSessionLog({ kafka, topic, sessionId: id, signal: abort.signal })) {
        seen.push(item);
        if (ids().includes(`${id}/2`) && ids().includes(`${id}/kid/0`)) break;
      }
    })();

    const a = await appendEvents({ ...root(id), fromSeq: 0, prevHash: ZERO_HASH, events: at([started('root', 0)]) });
    await appendEvents({ ...childOf(id, 'kid'), fromSeq: 0, prevHash: ZERO_HASH, events: at([started('kid', 1, id)]) });
    await appendEvents({ ...root(id), fromSeq: 0, prevHash: ZERO_HASH, events: at([started('root', 0)]) }); // a retry
    await appendEvents({ ...root(id), fromSeq: 1, prevHash: a.headHash, events: at([cell, done('4')], 1_700_000_005_000) });
    await following;

    // Sessions live in different partitions, so only each session's own order is defined.
    expect(ids().filter((e) => !e.includes('/kid/'))).toEqual([`${id}/0`, `${id}/1`, `${id}/2`]);
    expect(ids().filter((e) => e.includes('/kid/'))).toEqual([`${id}/kid/0`]);
  });

  test('reading a topic that does not exist fails at once, naming it', async () => {
    const missing = `${topic}-missing`;
    await expect(readSessionLog({ kafka, topic: missing, sessionId: 'x' })).rejects.toThrow(`event topic ${missing} does not exist`);
  });

  test('a follow ends when its signal is aborted', async () => {
    const abort = new AbortController();
    const items = followSessionLog({ kafka, topic, sessionId: `idle-${randomUUID()}`, signal: abort.signal });
    const next = items.next();
    abort.abort();
    await expect(next).resolves.toEqual({ done: true, value: undefined });
  });

  test('a topic that lost its settings to AlterConfigs gets them back from ensureTopicSettings, its other settings kept', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const sorted = (settings: Record<string, string>) => JSON.stringify(Object.entries(settings).sort());
      const settled = async (want: Record<string, string>) => {
        while (sorted(await topicSettings(admin, topic)) !== sorted(want)) await new Promise((r) => setTimeout(r, 100));
      };
      // What an operator's change through the legacy call leaves: the one setting it names.
      await alterTopicSettings(admin, topic, { 'max.message.bytes': '2000000' });
      await settled({ 'max.message.bytes': '2000000' });
      expect(await ensureTopicSettings(admin, topic)).toEqual(['cleanup.policy', 'retention.ms', 'retention.bytes', 'message.timestamp.after.max.ms']);
      await settled({
        'cleanup.policy': 'delete', 'max.message.bytes': '2000000', 'message.timestamp.after.max.ms': String(Number.MAX_SAFE_INTEGER), 'retention.bytes': '-1', 'retention.ms': '-1',
      });
      expect(await ensureTopicSettings(admin, topic)).toEqual([]);
    } finally {
      await admin.disconnect();
    }
  });
});
