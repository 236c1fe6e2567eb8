import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Partitioners } from 'kafkajs';
import { encodeSingleObject, sessionParent, sessionRoot, soeSchema, ZERO_HASH, type StoredEvent } from '../../schemas';
import { CHAINED_ENVELOPE, ENVELOPE } from '../../schemas/registry';
import { EVENT_SCHEMA_HISTORY, EVENT_SCHEMAS } from '../../schemas/generated/schemas';
import { kafkaClient } from '../../config/connections';
import { ensureEventTopicAccess } from '../../services/devstack';
import { readSessionLog } from '../../services/projector';
import { foreignConsumers, type Exit, type ForeignConsumer } from '../helpers/foreign-consumers';
import { SessionHarness, py } from '../helpers/session-harness';
import { runOnStackWorker } from '../helpers/stack-session';

const FIXTURES = join(__dirname, '..', 'fixtures');
const T = 1_700_000_100_000;
/** C3 01 and the 8-byte fingerprint. */
const SOE_HEADER_BYTES = 10;

/** A consumer's line for an event: the envelope's fields and, under `event`, the payload's. */
type Line = Omit<StoredEvent, 'event'> & { event: object };

function expectedLine(stored: StoredEvent): Line {
  const { event, ...envelope } = stored;
  const { type: _type, ...fields } = event;
  return { ...envelope, event: fields };
}

/** A session's record as a writer puts it on the topic (schemas/README.md, "The hash chain"), unsigned, around any payload. */
function record(sessionId: string, seq: number, prevHash: string, type: string, payload: Buffer): { value: Buffer; hash: string } {
  const envelope = {
    eventId: `${sessionId}/${seq}`, sessionId, rootId: sessionRoot(sessionId), parentId: sessionParent(sessionId),
    seq, ts: T + seq, type, prevHash, traceId: null, spanId: null, payload,
  };
  const unhashed = encodeSingleObject(CHAINED_ENVELOPE, { ...envelope, hash: '' });
  const hash = createHash('sha256').update(Buffer.from(prevHash, 'hex')).update(unhashed).digest('hex');
  return { value: encodeSingleObject(ENVELOPE, { ...envelope, hash, keyId: null, signature: null }), hash };
}

/**
 * Records under every earlier schema version, in one tree (`v1s`): the session logged before
 * signing (tests/fixtures/envelope-v1-log.json, envelope v1), its first record again (a retried
 * append), and a session holding every encoded payload fixture, each event type at each version.
 */
function olderRecords(): Array<{ key: string; value: Buffer }> {
  const v1 = JSON.parse(readFileSync(join(FIXTURES, 'envelope-v1-log.json'), 'utf8')) as { values: string[] };
  const logged = v1.values.map((hex) => ({ key: 'v1s', value: Buffer.from(hex, 'hex') }));
  const session = 'v1s/every-version';
  let prevHash = ZERO_HASH;
  const fixtures = readdirSync(join(FIXTURES, 'events')).filter((f) => f.endsWith('.json')).sort().map((file, seq) => {
    const { type, payload } = JSON.parse(readFileSync(join(FIXTURES, 'events', file), 'utf8')) as { type: string; payload: string };
    const r = record(session, seq, prevHash, type, Buffer.from(payload, 'hex'));
    prevHash = r.hash;
    return { key: session, value: r.value };
  });
  return [...logged, logged[0], ...fixtures];
}

/** ModelCalled as a newer Recur might write it: a version the published schemas do not hold yet. */
function futureModelCalled(sessionId: string): Buffer {
  const current = EVENT_SCHEMAS.ModelCalled as { fields: object[] };
  const future = soeSchema({ ...current, fields: [...current.fields, { name: 'future', type: 'int', default: 0, doc: 'Not yet published.' }] });
  const latest = (EVENT_SCHEMA_HISTORY.ModelCalled ?? []).length + 1;
  const { payload } = JSON.parse(readFileSync(join(FIXTURES, 'events', `ModelCalled.${latest}.json`), 'utf8')) as { payload: string };
  const fields = soeSchema(current).type.fromBuffer(Buffer.from(payload, 'hex').subarray(SOE_HEADER_BYTES));
  return record(sessionId, 0, ZERO_HASH, 'ModelCalled', encodeSingleObject(future, { ...fields, future: 7 })).value;
}

/**
 * Any consumer can read the topic: the example consumers in examples/consumers, which use no
 * Recur code, read a real session tree from the stack's topic and a tree of records written
 * under every earlier schema version from a topic of this test's own, and must print exactly
 * what Recur's own decodeEvent reads from the same records, each event once.
 */
describe('the example consumers in Python (fastavro) and Java (Avro BinaryMessageDecoder) read the log as Recur does', () => {
  const h = new SessionHarness();
  const ownTopic = `foreign-${randomUUID().slice(0, 8)}`;
  const futureTree = 'future';
  let consumers: ForeignConsumer[];
  let treeRoot: string;
  let futureAt: string;

  const recurView = async (topic: string, root: string) => {
    const log = await readSessionLog({ kafka: kafkaClient(h.config, 'reader', 'foreign-test'), topic, sessionId: root });
    expect([log.undecodable, log.conflicts]).toEqual([[], []]);
    return log.events;
  };
  const lines = (exit: Exit, name: string) => {
    if (exit.code !== 0) throw new Error(`the ${name} consumer exited ${exit.code}:\n${exit.stderr}`);
    return exit.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Line);
  };
  const byId = (events: Line[]) => Object.fromEntries(events.map((e) => [e.eventId, e]));

  /** Each consumer's lines equal Recur's events, as a set and one line per event. */
  const expectSameAsRecur = async (topic: string, root: string) => {
    const expected = (await recurView(topic, root)).map(expectedLine);
    const exits = await Promise.all(consumers.map((c) => c.read(topic, root)));
    exits.forEach((exit, i) => {
      const got = lines(exit, consumers[i].name);
      expect({ consumer: consumers[i].name, events: byId(got) }).toEqual({ consumer: consumers[i].name, events: byId(expected) });
      expect({ consumer: consumers[i].name, lines: got.length }).toEqual({ consumer: consumers[i].name, lines: expected.length });
    });
    return expected;
  };

  beforeAll(async () => {
    await h.connect();
    const session = async () => {
      const run = await runOnStackWorker(h, {
        root: [
          py(`
kid = rlm("count the letters of 'héllo wörld' 🙂", name="counter")
print("counter says:", kid.result(timeout=120), '\\t"quoted"\\\\')`),
          'Done — «ünïcode», "quotes", a\\backslash and 🙂',
        ],
        counter: [py('n = sum(c.isalpha() for c in "héllo wörld")\nprint(n)'), py('final(n)')],
      }, { task: 'ask a sub-agent to count letters\n\twith "quotes" 🙂' });
      expect(run.result).toEqual({ status: 'completed', answer: 'Done — «ünïcode», "quotes", a\\backslash and 🙂' });
      treeRoot = run.id;
    };
    const older = async () => {
      await ensureEventTopicAccess(h.config, ownTopic);
      const producer = kafkaClient(h.config, 'writer', 'foreign-test').producer({ createPartitioner: Partitioners.DefaultPartitioner });
      await producer.connect();
      await producer.send({ topic: ownTopic, acks: -1, messages: [...olderRecords(), { key: 'v1sx', value: Buffer.from('not in the tree, not Avro') }] });
      const [sent] = await producer.send({ topic: ownTopic, acks: -1, messages: [{ key: futureTree, value: futureModelCalled(futureTree) }] });
      futureAt = `${ownTopic}/${sent.partition}@${sent.baseOffset}`;
      await producer.disconnect();
    };
    [consumers] = await Promise.all([foreignConsumers(h.config), session(), older()]);
  }, 600_000);

  afterAll(() => h.stop());

  it('a real session tree with a sub-agent and cells, from the stack\'s topic', async () => {
    const events = await expectSameAsRecur(h.config.kafka.topic, treeRoot);
    expect([...new Set(events.map((e) => e.type))]).toEqual(expect.arrayContaining([
      'SessionStarted', 'ModelCalled', 'CellRequested', 'CellExecuted', 'SubagentSpawned', 'SubagentCompleted', 'SessionCompleted',
    ]));
    expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set([treeRoot, `${treeRoot}/counter`]));
  });

  it('records written under every earlier envelope and event schema version, resolved to the current ones', async () => {
    const events = await expectSameAsRecur(ownTopic, 'v1s');
    const fixtures = readdirSync(join(FIXTURES, 'events')).filter((f) => f.endsWith('.json'));
    expect(events).toHaveLength(3 + fixtures.length);
  });

  it('a payload under a writer schema they do not hold stops them, naming the record', async () => {
    for (const c of consumers) {
      const exit = await c.read(ownTopic, futureTree);
      expect({ consumer: c.name, code: exit.code, stdout: exit.stdout }).toEqual({ consumer: c.name, code: 1, stdout: '' });
      expect(exit.stderr).toContain(futureAt);
    }
  });
});
