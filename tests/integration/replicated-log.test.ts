import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigResourceTypes, Partitioners, type Admin } from 'kafkajs';
import { loadConfig } from '../../config';
import { kafkaClient } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { ensureEventTopicAccess } from '../../services/devstack';
import { kafkaClusterEnv, kafkaNodeServices, localKafkaCluster, startKafkaCluster, stopKafkaCluster } from '../../services/devstack/kafka-cluster';
import { servicePid } from '../../services/devstack/service-run';
import { homeKeyring } from '../../services/home/log-keys';
import { followSessionLog } from '../../services/projector';
import { auditTopicTree } from '../../services/projector/audit-topic';
import { scanTopic } from '../../services/projector/scan-topic';
import { py, SessionHarness } from '../helpers/session-harness';

/**
 * Invariant 1 across the loss of a broker: a session writes its log to a 3-node KRaft cluster
 * (RF 3, min ISR 2) and the node leading its partition is SIGKILLed while it runs. The session
 * must end as usual, its log gap-free, chained and sealed, each cell run once. Both ways to break
 * it were run and fail here: with the producer at acks=1 (idempotence off, as kafkajs requires)
 * the chain check finds the appends that died with the leader missing; with the topic at RF 1 the
 * partition dies with its leader and the session never ends.
 */
const OFFSET = Number(process.env.RECUR_TEST_PORT_OFFSET ?? 0);
const CELLS = 5;
/** Long enough for the session to append while only the leader takes its records (a cell and a model turn). */
const PAUSE_MS = 2_000;

/** Each cell counts itself in the kernel: a cell run twice, or lost, changes the answer. */
const SCRIPT = {
  root: [
    ...Array.from({ length: CELLS }, (_, i) => py(`${i === 0 ? 'ran = 1' : 'ran += 1'}\nimport time\ntime.sleep(0.5)`)),
    py('final(str(ran))'),
  ],
};

describe('replicated event log (3-node KRaft cluster, RF 3, min.insync.replicas 2)', () => {
  const config = loadConfig();
  const cluster = localKafkaCluster(config, 'kafka-rf3', 29210 + OFFSET, 'RECUR_TEST_PORT_OFFSET');
  const topic = `recur.rf3.${randomBytes(4).toString('hex')}`;
  let h: SessionHarness | undefined;
  let admin: Admin;

  beforeAll(async () => {
    const t0 = Date.now();
    await startKafkaCluster(config, cluster);
    process.stderr.write(`[replicated-log] 3-node cluster healthy in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
    const asAdmin = loadConfig({ ...process.env, ...kafkaClusterEnv(config, cluster, 'admin'), RECUR_KAFKA_TOPIC: topic });
    await ensureEventTopicAccess(asAdmin);
    admin = kafkaClient(asAdmin, 'admin', 'rf3-test').admin();
    await admin.connect();
    h = new SessionHarness({ ...kafkaClusterEnv(config, cluster), RECUR_KAFKA_TOPIC: topic });
    await h.start();
  }, 120_000);

  afterAll(async () => {
    try {
      await admin?.disconnect();
      await h?.stop();
    } finally {
      await stopKafkaCluster(config, cluster);
    }
  }, 60_000);

  it('a session outlives the SIGKILL of its partition leader: its log gap-free, chained and sealed, each cell run once', async () => {
    const t0 = Date.now();
    const described = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['min.insync.replicas'] }], includeSynonyms: false,
    });
    expect(described.resources[0].configEntries.map((c) => [c.configName, c.configValue])).toEqual([['min.insync.replicas', '2']]);
    const partitions = async () => (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0].partitions;
    expect((await partitions()).map((p) => p.replicas.length)).toEqual(Array(config.kafka.partitions).fill(3));

    const input = h!.input(SCRIPT, 'count your cells');
    const id = input.sessionId;
    // Where the worker's producer puts the session's records (it keys them by session id).
    const partition = Partitioners.DefaultPartitioner()({ topic, partitionMetadata: await partitions(), message: { key: id, value: null } });
    await h!.client.workflow.start('agentSessionWorkflow', { taskQueue: h!.taskQueue, workflowId: id, args: [input] });

    // Mid-session: once the first cell is logged, kill the node that leads the session's partition.
    let before = 0;
    for await (const item of followSessionLog({ kafka: kafkaClient(h!.config, 'reader', 'rf3-follow'), topic, sessionId: id })) {
      if (item.kind !== 'event') continue;
      before++;
      if (item.event.type === 'CellExecuted') break;
    }
    const leader = (await partitions()).find((p) => p.partitionId === partition)!.leader;
    const pidOf = (node: number) => servicePid(config, kafkaNodeServices(cluster).find((s) => s.name === `${cluster.name}-${node}`)!)!;
    const followers = cluster.nodes.filter((n) => n.id !== leader).map((n) => pidOf(n.id));
    // Followers frozen first, so the leader dies holding appends only it has seen: acks=all has not
    // acknowledged them yet and the producer sends them again to the next leader; with acks=1 they
    // were acknowledged and die with it, leaving a gap in the log.
    followers.forEach((pid) => process.kill(pid, 'SIGSTOP'));
    try {
      await sleep(PAUSE_MS);
      process.kill(pidOf(leader), 'SIGKILL');
    } finally {
      followers.forEach((pid) => process.kill(pid, 'SIGCONT'));
    }
    const killedAt = Date.now();

    const run = await h!.read(id, await h!.result(id));
    process.stderr.write(`[replicated-log] session ended ${((Date.now() - killedAt) / 1000).toFixed(1)}s after the kill of node ${leader}\n`);
    expect(run.result).toEqual({ status: 'completed', answer: String(CELLS) });
    const events = run.sessions.get(id)!;
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events.length).toBeGreaterThan(before);
    // The counting cells and the one that answers.
    expect(run.of('CellRequested')).toHaveLength(CELLS + 1);
    expect(new Set(run.of('CellExecuted').map((c) => c.requestId)).size).toBe(CELLS + 1);
    expect(run.of('CellExecuted').every((c) => c.status === 'ok')).toBe(true);

    // The partition moved to a surviving replica, and it holds every record of the session.
    const now = (await partitions()).find((p) => p.partitionId === partition)!;
    expect(now.leader).not.toBe(leader);
    expect(now.isr).not.toContain(leader);
    const held = new Set<number>();
    await scanTopic({ kafka: kafkaClient(h!.config, 'reader', 'rf3-scan'), topic, onRecord: (r) => { if (r.key?.toString() === id) held.add(r.partition); } });
    expect([...held]).toEqual([partition]);

    // The audit reads every raw record: exact copies a retried append left are counted, not faults.
    const verdict = await auditTopicTree({ kafka: kafkaClient(h!.config, 'reader', 'rf3-audit'), topic, sessionId: id, keys: homeKeyring(stackPaths(config).keys) });
    expect(verdict).toMatchObject({ ok: true, faults: [], events: events.length });
    process.stderr.write(`[replicated-log] ${verdict.events} events (${before} before the kill), ${verdict.duplicates} raw duplicates dropped; test ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
  });
});
