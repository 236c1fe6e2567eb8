import type { Kafka, Producer, ProducerRecord } from 'kafkajs';
import { createEventLogActivities, type AppendEventsInput } from '../../activities/event-log';
import { EventLogError } from '../../errors';
import { MAX_EVENT_BYTES, ZERO_HASH, checkSeal, decodeEvent, verifyChain } from '../../schemas';
import { testLogKey } from '../helpers/test-log-key';
import { SAMPLE_EVENTS } from './event-samples';

const { signer, keyring } = testLogKey();

function fakeProducer(fail?: Error) {
  const sent: ProducerRecord[] = [];
  const producer = {
    connect: jest.fn(async () => undefined),
    send: jest.fn(async (record: ProducerRecord) => {
      if (fail) throw fail;
      sent.push(record);
      return [];
    }),
  };
  return { producer: producer as unknown as Producer, sent, connect: producer.connect };
}

const input: AppendEventsInput = {
  sessionId: 'r1', rootId: 'r1', parentId: null, fromSeq: 0, prevHash: ZERO_HASH,
  events: SAMPLE_EVENTS.map((event, i) => ({ ts: 1_700_000_000_000 + i, event })),
};
const kafka = {} as Kafka;

describe('appendEvents activity', () => {
  test('writes each event keyed by session with acks=all, the event ts as record timestamp, and the signer\'s seal', async () => {
    const fake = fakeProducer();
    const { appendEvents } = createEventLogActivities({ kafka, topic: 'events', signer, producer: fake.producer });
    const result = await appendEvents(input);
    expect(result.eventIds).toEqual(['r1/0', 'r1/1', 'r1/2', 'r1/3', 'r1/4', 'r1/5']);
    expect(result.nextSeq).toBe(6);
    const [record] = fake.sent;
    expect(record).toMatchObject({ topic: 'events', acks: -1 });
    expect(record.messages.map((m) => [m.key, m.timestamp])).toEqual(input.events.map((e) => ['r1', String(e.ts)]));
    const decoded = record.messages.map((m) => decodeEvent(m.value as Buffer));
    expect(verifyChain(decoded)).toEqual({ ok: true, heads: { r1: { nextSeq: 6, headHash: result.headHash } } });
    expect(decoded.map((e) => checkSeal(e, keyring))).toEqual(decoded.map(() => null));
  });

  test('a retried call writes byte-identical records and connects once', async () => {
    const fake = fakeProducer();
    const { appendEvents } = createEventLogActivities({ kafka, topic: 'events', signer, producer: fake.producer });
    await appendEvents(input);
    await appendEvents(structuredClone(input));
    const [a, b] = fake.sent;
    expect(b.messages.map((m) => m.value)).toEqual(a.messages.map((m) => m.value));
    expect(fake.connect).toHaveBeenCalledTimes(1);
  });

  test('continues a chain from fromSeq and prevHash, and an empty batch writes nothing', async () => {
    const fake = fakeProducer();
    const { appendEvents } = createEventLogActivities({ kafka, topic: 'events', signer, producer: fake.producer });
    const first = await appendEvents({ ...input, events: input.events.slice(0, 2) });
    const rest = await appendEvents({ ...input, fromSeq: first.nextSeq, prevHash: first.headHash, events: input.events.slice(2) });
    expect(await appendEvents({ ...input, fromSeq: rest.nextSeq, prevHash: rest.headHash, events: [] })).toEqual({
      nextSeq: 6, headHash: rest.headHash, eventIds: [],
    });
    const all = fake.sent.flatMap((r) => r.messages.map((m) => decodeEvent(m.value as Buffer)));
    expect(verifyChain(all).ok).toBe(true);
  });

  test('splits a batch too big for one request, keeping order', async () => {
    const fake = fakeProducer();
    const { appendEvents } = createEventLogActivities({ kafka, topic: 'events', signer, producer: fake.producer });
    // About 144 KB each, within its field limits: seven of them pass one request's budget.
    const big = {
      type: 'HarnessEdited' as const, action: 'update', kind: 'memory', name: 'notes', before: 'x'.repeat(72_000), after: 'y'.repeat(72_000),
      trigger: { eventIds: [], reason: 'r' }, source: 'cli', result: 'applied',
    };
    const seqs = [0, 1, 2, 3, 4, 5, 6, 7];
    await appendEvents({ ...input, events: seqs.map((i) => ({ ts: i, event: i === 0 ? SAMPLE_EVENTS[0] : big })) });
    expect(fake.sent.length).toBeGreaterThan(1);
    expect(fake.sent.flatMap((r) => r.messages.map((m) => decodeEvent(m.value as Buffer).seq))).toEqual(seqs);
  });

  test('Kafka failures are retryable EventLogErrors, except ones a retry cannot fix', async () => {
    const transient = Object.assign(new Error('leader not available'), { type: 'LEADER_NOT_AVAILABLE' });
    const tooLarge = Object.assign(new Error('retries exhausted'), { originalError: Object.assign(new Error('too large'), { type: 'MESSAGE_TOO_LARGE' }) });
    for (const [err, retryable] of [[transient, true], [tooLarge, false]] as const) {
      const { appendEvents } = createEventLogActivities({ kafka, topic: 'events', signer, producer: fakeProducer(err).producer });
      const failure = await appendEvents(input).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(EventLogError);
      expect(failure).toMatchObject({ retryable });
    }
  });

  test('an invalid event fails before anything is sent, and not as retryable', async () => {
    const fake = fakeProducer();
    const { appendEvents } = createEventLogActivities({ kafka, topic: 'events', signer, producer: fake.producer });
    await expect(appendEvents({ ...input, parentId: 'nobody' })).rejects.toMatchObject({ name: 'EventLogError', retryable: false });
    expect(fake.sent).toEqual([]);
  });

  test('a root session\'s first batch waits for the tree\'s index entry before it is sent; later batches and children do not', async () => {
    const order: string[] = [];
    const fake = fakeProducer();
    const send = fake.producer.send.bind(fake.producer);
    fake.producer.send = async (record) => { order.push(`send ${(record.messages[0].key as string)}`); return send(record); };
    const { appendEvents } = createEventLogActivities({
      kafka, topic: 'events', signer, producer: fake.producer, beforeTreeStarts: async (rootId) => { order.push(`mark ${rootId}`); },
    });
    const first = await appendEvents({ ...input, events: input.events.slice(0, 2) });
    await appendEvents({ ...input, fromSeq: first.nextSeq, prevHash: first.headHash, events: input.events.slice(2) });
    await appendEvents({ ...input, sessionId: 'r1/child', parentId: 'r1', events: input.events.slice(0, 1) });
    expect(order).toEqual(['mark r1', 'send r1', 'send r1', 'send r1/child']);
  });

  test('an event with a value past its field limit is appended clipped, under the encoder limit', async () => {
    const fake = fakeProducer();
    const { appendEvents } = createEventLogActivities({ kafka, topic: 'events', signer, producer: fake.producer });
    const huge = { type: 'SessionCompleted' as const, answer: 'y'.repeat(600_000), answerBlob: null };
    await appendEvents({ ...input, events: [{ ts: 1, event: { type: 'SessionStarted', task: 't', name: 'root', model: 'm', parentId: null, depth: 0, maxDepth: 1, maxTurns: 1, cellTimeoutSeconds: 1 } }, { ts: 2, event: huge }] });
    const value = fake.sent[0].messages[1].value as Buffer;
    expect(value.length).toBeLessThanOrEqual(MAX_EVENT_BYTES);
    const answer = (decodeEvent(value).event as { answer: string }).answer;
    expect(answer).toMatch(/…\[cut: 600000 characters, 100000 kept\]$/);
  });
});
