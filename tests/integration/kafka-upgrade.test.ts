import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { createEventLogActivities, createEventLogProducer } from '../../activities/event-log';
import { ensureTopic } from '../../activities/event-topic';
import { loadConfig, parseConfig, type RecurConfig } from '../../config';
import { ZERO_HASH, verifyChain } from '../../schemas';
import { kafkaBrokers, kafkaClient } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { homeSigner } from '../../services/home/log-keys';
import { startDetached, stopProcess } from '../../services/home/process';
import { ensureEventTopicAccess } from '../../services/devstack';
import { kafkaFiles, kafkaService } from '../../services/devstack/kafka';
import { jvmOpts } from '../../services/devstack/kafka-properties';
import { readSessionLog } from '../../services/projector';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What `recur up` wrote before the broker required SASL: one PLAINTEXT client listener, no authorizer. */
function preSaslProperties(config: RecurConfig, dataDir: string): string {
  const { host } = config;
  const { kafka, kafkaController } = config.ports;
  return [
    'process.roles=broker,controller', 'node.id=1', `controller.quorum.voters=1@${host}:${kafkaController}`,
    `listeners=PLAINTEXT://${host}:${kafka},CONTROLLER://${host}:${kafkaController}`, `advertised.listeners=PLAINTEXT://${host}:${kafka}`,
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT', 'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT', `log.dirs=${dataDir}`, 'offsets.topic.replication.factor=1', 'offsets.topic.num.partitions=1',
    'transaction.state.log.replication.factor=1', 'transaction.state.log.min.isr=1', 'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1', 'group.initial.rebalance.delay.ms=0', 'auto.create.topics.enable=false', '',
  ].join('\n');
}

/**
 * A home whose Kafka log was formatted without SCRAM users, holding a session's events: the next
 * `recur up` adds the users and ACLs to it rather than reformatting, and the events are still there.
 */
describe('upgrading a home from before the broker required SASL', () => {
  const base = loadConfig();
  const offset = Number(process.env.RECUR_TEST_PORT_OFFSET ?? 0);
  const home = mkdtempSync(join(tmpdir(), 'recur-kafka-upgrade-'));
  const config = parseConfig({
    ...process.env, RECUR_HOME: home, RECUR_TOOLS_DIR: base.toolsDir,
    RECUR_KAFKA_PORT: String(29592 + offset), RECUR_KAFKA_CONTROLLER_PORT: String(29593 + offset),
  }).config;
  const f = kafkaFiles(config);
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('keeps the events and from then on refuses clients without credentials', async () => {
    mkdirSync(f.dataDir, { recursive: true });
    writeFileSync(f.props, preSaslProperties(config, f.dataDir));
    const fmt = spawnSync(config.java, [...jvmOpts(config), '-cp', f.classpath, 'kafka.tools.StorageTool', 'format', '--cluster-id=upgradetestclusterid01', '-c', f.props], { encoding: 'utf8' });
    expect(fmt.status).toBe(0);
    const old = spawn(config.java, [...jvmOpts(config), '-cp', f.classpath, 'kafka.Kafka', f.props], { stdio: 'ignore' });
    const id = `upgrade-${Date.now().toString(36)}`;
    try {
      const plain = new Kafka({ clientId: 'old', brokers: kafkaBrokers(config), logLevel: logLevel.NOTHING, retry: { retries: 20, initialRetryTime: 200 } });
      const admin = plain.admin();
      await admin.connect();
      await ensureTopic(admin, config.kafka.topic, config.kafka.partitions);
      await admin.disconnect();
      const producer = createEventLogProducer(plain);
      const { appendEvents } = createEventLogActivities({ kafka: plain, topic: config.kafka.topic, producer, signer: homeSigner(stackPaths(config).keys) });
      await appendEvents({
        sessionId: id, rootId: id, parentId: null, fromSeq: 0, prevHash: ZERO_HASH, events: [
          { ts: 1_700_000_000_000, event: { type: 'SessionStarted', task: 't', name: 'root', model: 'scripted', parentId: null, depth: 0, maxDepth: 1, maxTurns: 1, cellTimeoutSeconds: 5 } },
          { ts: 1_700_000_000_001, event: { type: 'SessionCompleted', answer: 'kept' } },
        ],
      });
      await producer.disconnect();
    } finally {
      old.kill('SIGTERM');
      await new Promise((r) => old.once('exit', r));
    }
    expect(existsSync(f.credentials)).toBe(false);

    const spec = await kafkaService.prepare(config);
    expect(statSync(f.credentials).mode & 0o777).toBe(0o600);
    const rec = startDetached({ ...spec, logFile: join(stackPaths(config).logs, 'kafka.log'), pidFile: join(stackPaths(config).run, 'kafka.pid') });
    try {
      for (let i = 0; i < 240 && !(await kafkaService.healthy(config)); i++) await sleep(250);
      expect(await kafkaService.healthy(config)).toBe(true);
      await ensureEventTopicAccess(config);
      const log = await readSessionLog({ kafka: kafkaClient(config, 'reader', 'upgrade-read'), topic: config.kafka.topic, sessionId: id });
      expect(log.events.map((e) => e.type)).toEqual(['SessionStarted', 'SessionCompleted']);
      expect(verifyChain(log.events)).toMatchObject({ ok: true });

      const anonymous = new Kafka({ clientId: 'old', brokers: kafkaBrokers(config), logLevel: logLevel.NOTHING, connectionTimeout: 2000, retry: { retries: 0 } }).admin();
      await expect(anonymous.connect().then(() => anonymous.listTopics())).rejects.toThrow(/connection/i);
      await anonymous.disconnect();
    } finally {
      await stopProcess(rec);
    }
  });
});
