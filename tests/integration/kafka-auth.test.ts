import { readFileSync, statSync } from 'node:fs';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { createEventLogActivities, createEventLogProducer } from '../../activities/event-log';
import { loadConfig } from '../../config';
import { EventLogError } from '../../errors';
import { ZERO_HASH } from '../../schemas';
import { kafkaBrokers, kafkaClient } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { homeSigner } from '../../services/home/log-keys';
import { readPid } from '../../services/home/process';
import { readSessionLog } from '../../services/projector';
import { py, SessionHarness } from '../helpers/session-harness';

/** The embedded broker on the test stack: SASL/SCRAM on its only client listener, ACLs per principal. */
describe('the embedded Kafka broker is authenticated and authorised', () => {
  const config = loadConfig();
  const topic = config.kafka.topic;
  const creds = JSON.parse(readFileSync(stackPaths(config).kafkaCredentials, 'utf8')) as Record<string, { username: string; password: string }>;
  const passwords = Object.values(creds).map((c) => c.password);
  const bare = (extra: Partial<ConstructorParameters<typeof Kafka>[0]> = {}) =>
    new Kafka({ clientId: 'intruder', brokers: kafkaBrokers(config), logLevel: logLevel.NOTHING, connectionTimeout: 2000, retry: { retries: 0 }, ...extra });

  it('keeps three distinct random passwords in an owner-only file', () => {
    expect(statSync(stackPaths(config).kafkaCredentials).mode & 0o777).toBe(0o600);
    expect(Object.keys(creds).sort()).toEqual(['admin', 'reader', 'writer']);
    expect(new Set(passwords).size).toBe(3);
  });

  it('refuses a client without credentials and one with a wrong password', async () => {
    const anonymous = bare().admin();
    await expect(anonymous.connect().then(() => anonymous.listTopics())).rejects.toThrow(/connection/i);
    await anonymous.disconnect();
    const guessing = bare({ sasl: { mechanism: 'scram-sha-512', username: creds.writer.username, password: 'not-the-password' } }).admin();
    await expect(guessing.connect()).rejects.toThrow(/authentication failed/i);
  });

  it("refuses the reader's appends to the event topic with an error naming the reason, and its raw produce", async () => {
    const reader = kafkaClient(config, 'reader', 'reader-writes');
    const producer = createEventLogProducer(reader);
    const { appendEvents } = createEventLogActivities({ kafka: reader, topic, producer, signer: homeSigner(stackPaths(config).keys) });
    const id = `auth-${Date.now().toString(36)}`;
    const err = await appendEvents({
      sessionId: id, rootId: id, parentId: null, fromSeq: 1, prevHash: ZERO_HASH,
      events: [{ ts: 1_700_000_000_000, event: { type: 'SessionCompleted', answer: 'forged' } }],
    }).catch((e: unknown) => e);
    await producer.disconnect();
    expect(err).toBeInstanceOf(EventLogError);
    expect((err as EventLogError).message).toMatch(new RegExp(`may not write to ${topic.replace(/\./g, '\\.')} \\(\\w+_AUTHORIZATION_FAILED\\)`));
    expect((err as EventLogError).retryable).toBe(false);
    expect((err as EventLogError).hint).toMatch(/only the worker's Kafka principal appends/);

    const raw = reader.producer({ createPartitioner: Partitioners.DefaultPartitioner, retry: { retries: 0 } });
    await raw.connect();
    await expect(raw.send({ topic, messages: [{ key: id, value: 'x' }] })).rejects.toMatchObject({ type: 'TOPIC_AUTHORIZATION_FAILED' });
    await raw.disconnect();
  });

  it('lets neither the reader nor the writer delete the event topic', async () => {
    for (const role of ['reader', 'writer'] as const) {
      const admin = kafkaClient(config, role, `${role}-deletes`).admin({ retry: { retries: 0 } });
      await admin.connect();
      await expect(admin.deleteTopics({ topics: [topic] })).rejects.toThrow(/authoriz/i);
      await admin.disconnect();
    }
    const admin = kafkaClient(config, 'admin', 'check').admin();
    await admin.connect();
    expect(await admin.listTopics()).toContain(topic);
    await admin.disconnect();
  });

  describe('a session', () => {
    const h = new SessionHarness();
    beforeAll(() => h.start());
    afterAll(() => h.stop());

    it('runs end to end (worker writes as the writer, the log is read back as the reader) and no Kafka password reaches the kernel or the Jupyter server', async () => {
      const run = await h.run({ root: [py('import os\nprint("\\n".join(f"{k}={v}" for k, v in os.environ.items()))'), 'done'] });
      expect(run.result).toEqual({ status: 'completed', answer: 'done' });
      const outputs = run.of('CellExecuted').map((c) => c.outputs).join('\n');
      expect(outputs).toMatch(/PATH=/); // the cell did print its environment
      for (const p of passwords) expect(outputs).not.toContain(p);

      const jupyter = readPid(`${stackPaths(config).run}/jupyter.pid`)!;
      const environ = readFileSync(`/proc/${jupyter.pid}/environ`, 'utf8');
      expect(environ).toMatch(/JUPYTER_CONFIG_DIR=/);
      for (const p of passwords) expect(environ).not.toContain(p);

      const log = await readSessionLog({ kafka: kafkaClient(config, 'reader', 'auth-read'), topic, sessionId: run.id });
      expect(log.events.at(-1)?.type).toBe('SessionCompleted');
    });
  });
});
