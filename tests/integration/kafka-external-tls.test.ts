import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventLogActivities, createEventLogProducer } from '../../activities/event-log';
import { ensureTopic } from '../../activities/event-topic';
import { loadConfig, parseConfig } from '../../config';
import { ZERO_HASH } from '../../schemas';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaClient, kafkaConnection } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { homeSigner } from '../../services/home/log-keys';
import { jvmOpts } from '../../services/devstack/kafka-properties';
import { readSessionLog } from '../../services/projector';

/** A CA, and a server and a client certificate it signed (the server's for DNS name kafka.test). */
function makeCerts(dir: string): void {
  const ssl = (...args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args[0]}: ${r.stderr}`);
  };
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=recur-test-ca');
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=DNS:kafka.test\n');
  for (const [name, cn] of [['server', 'kafka.test'], ['client', 'recur-worker']]) {
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2',
      ...(name === 'server' ? ['-extfile', 'server.ext'] : []));
  }
  // Kafka's PEM keystore: the PKCS#8 key followed by the certificate chain, in one file.
  writeFileSync(join(dir, 'server.pem'), readFileSync(join(dir, 'server.key'), 'utf8') + readFileSync(join(dir, 'server.crt'), 'utf8'));
}

/**
 * An external cluster as an operator might run one: SASL_SSL with SCRAM-SHA-256 and client
 * certificates required, reached only through Recur's external settings (brokers, SASL with a
 * password file, TLS with CA, client cert and key, server name).
 */
describe('an external Kafka over SASL_SSL with mTLS', () => {
  const base = loadConfig();
  const offset = Number(process.env.RECUR_TEST_PORT_OFFSET ?? 0);
  const port = 29692 + offset;
  const dir = mkdtempSync(join(tmpdir(), 'recur-kafka-tls-'));
  const password = 'external-writer-password';
  let broker: ChildProcess;
  const settings = {
    ...process.env,
    RECUR_KAFKA_BROKERS: `127.0.0.1:${port}`, RECUR_KAFKA_TOPIC: 'recur.external.v1',
    RECUR_KAFKA_SASL_MECHANISM: 'scram-sha-256', RECUR_KAFKA_SASL_USERNAME: 'recur-worker', RECUR_KAFKA_SASL_PASSWORD_FILE: join(dir, 'writer.pw'),
    RECUR_KAFKA_TLS: 'true', RECUR_KAFKA_TLS_CA_FILE: join(dir, 'ca.pem'), RECUR_KAFKA_TLS_SERVER_NAME: 'kafka.test',
    RECUR_KAFKA_TLS_CERT_FILE: join(dir, 'client.crt'), RECUR_KAFKA_TLS_KEY_FILE: join(dir, 'client.key'),
  };

  beforeAll(async () => {
    makeCerts(dir);
    writeFileSync(join(dir, 'writer.pw'), `${password}\n`);
    const data = join(dir, 'data');
    mkdirSync(data);
    const props = join(dir, 'server.properties');
    writeFileSync(props, [
      'process.roles=broker,controller', 'node.id=1', `controller.quorum.voters=1@127.0.0.1:${port + 1}`,
      `listeners=EXTERNAL://127.0.0.1:${port},CONTROLLER://127.0.0.1:${port + 1}`, `advertised.listeners=EXTERNAL://127.0.0.1:${port}`,
      'listener.security.protocol.map=EXTERNAL:SASL_SSL,CONTROLLER:PLAINTEXT', 'controller.listener.names=CONTROLLER',
      'inter.broker.listener.name=EXTERNAL', 'sasl.mechanism.inter.broker.protocol=SCRAM-SHA-256',
      'listener.name.external.sasl.enabled.mechanisms=SCRAM-SHA-256',
      `listener.name.external.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="recur-worker" password="${password}";`,
      'ssl.keystore.type=PEM', `ssl.keystore.location=${join(dir, 'server.pem')}`,
      'ssl.truststore.type=PEM', `ssl.truststore.location=${join(dir, 'ca.pem')}`,
      // KIP-684: on a SASL_SSL listener, client certificates are asked for only with the listener prefix.
      'listener.name.external.ssl.client.auth=required',
      `log.dirs=${data}`, 'offsets.topic.replication.factor=1', 'offsets.topic.num.partitions=1', 'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1', 'share.coordinator.state.topic.replication.factor=1', 'share.coordinator.state.topic.min.isr=1',
      'group.initial.rebalance.delay.ms=0', 'auto.create.topics.enable=false', '',
    ].join('\n'));
    const cp = join(base.toolsDir, 'kafka', 'lib', '*');
    const fmt = spawnSync(base.java, [...jvmOpts(base), '-cp', cp, 'kafka.tools.StorageTool', 'format', '--cluster-id=externaltlsclusterid01', '-c', props,
      '--add-scram', `SCRAM-SHA-256=[name=recur-worker,password=${password}]`], { encoding: 'utf8' });
    expect(fmt.status).toBe(0);
    const log = openSync(join(dir, 'broker.log'), 'w');
    broker = spawn(base.java, [...jvmOpts(base), '-cp', cp, 'kafka.Kafka', props], { stdio: ['ignore', log, log] });
    const started = () => readFileSync(join(dir, 'broker.log'), 'utf8').includes('Kafka Server started');
    for (let i = 0; i < 600 && broker.exitCode === null && !started(); i++) await new Promise((r) => setTimeout(r, 200));
    expect(started()).toBe(true);
  });
  afterAll(async () => {
    broker?.kill('SIGTERM');
    if (broker?.exitCode === null) await new Promise((r) => broker.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    if (expect.getState().assertionCalls === 0 || broker.exitCode !== null) process.stderr.write(readFileSync(join(dir, 'broker.log'), 'utf8').slice(-3000));
  });

  it("appends and reads back a session through the config's TLS and SASL settings alone", async () => {
    const config = parseConfig(settings).config;
    const kafka = kafkaClient(config, 'writer', 'external-tls');
    const admin = kafka.admin();
    await admin.connect();
    await ensureTopic(admin, config.kafka.topic, 2);
    await admin.disconnect();
    const producer = createEventLogProducer(kafka);
    const { appendEvents } = createEventLogActivities({ kafka, topic: config.kafka.topic, producer, signer: homeSigner(stackPaths(config).keys) });
    const id = `tls-${Date.now().toString(36)}`;
    await appendEvents({ sessionId: id, rootId: id, parentId: null, fromSeq: 0, prevHash: ZERO_HASH, events: [
      { ts: 1_700_000_000_000, event: { type: 'SessionStarted', task: 't', name: 'root', model: 'scripted', parentId: null, depth: 0, maxDepth: 1, maxTurns: 1, cellTimeoutSeconds: 5 } },
    ] });
    await producer.disconnect();
    const log = await readSessionLog({ kafka: kafkaClient(config, 'reader', 'external-tls-read'), topic: config.kafka.topic, sessionId: id });
    expect(log.events.map((e) => e.eventId)).toEqual([`${id}/0`]);
  });

  it('fails to connect without the client certificate, with a server name the certificate lacks, and with a wrong password', async () => {
    const attempt = async (env: Record<string, string | undefined>) => {
      const connection = kafkaConnection(parseConfig({ ...settings, ...env }).config, 'writer');
      const admin = new Kafka({ clientId: 'external-tls-bad', ...connection, logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
      try {
        await admin.connect();
        await admin.listTopics();
        return null;
      } catch (e) {
        return (e as Error).message;
      } finally {
        await admin.disconnect();
      }
    };
    writeFileSync(join(dir, 'wrong.pw'), 'not-it');
    expect(await attempt({ RECUR_KAFKA_TLS_CERT_FILE: undefined, RECUR_KAFKA_TLS_KEY_FILE: undefined })).toMatch(/bad certificate/);
    expect(await attempt({ RECUR_KAFKA_TLS_SERVER_NAME: 'other.test' })).toMatch(/other\.test\. is not in the cert's altnames: DNS:kafka\.test/);
    expect(await attempt({ RECUR_KAFKA_SASL_PASSWORD_FILE: join(dir, 'wrong.pw') })).toMatch(/authentication failed/i);
  });
});
