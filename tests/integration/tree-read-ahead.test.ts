import { ZERO_HASH, type RecurEventInput, type StoredEvent } from '../../schemas';
import { ensureEventTopicAccess } from '../../services/devstack';
import { catalogFollower } from '../../services/daemon/catalog-follower';
import { highWatermarks, scanTopic } from '../../services/projector/scan-topic';
import { TreeCache } from '../../services/projector/tree-cache';
import { ownDaemonHome } from '../helpers/own-daemon-home';
import { until } from '../helpers/poll-tree-log';

/**
 * The daemon's tree cache fed by its catalog follower, on a topic of three partitions of the
 * real Kafka: trees the follower reads are opened without a scan and hold what a scan finds;
 * once the follower stops, scans carry on from where it got to.
 */
describe('the tree cache reading ahead from the catalog follower', () => {
  const { suffix, config, kafka, producer, log, index } = ownDaemonHome('read-ahead-it');
  const topic = config.kafka.topic;
  const root = `ra${suffix}`;
  const child = `${root}/helper`;
  const heads = new Map<string, { nextSeq: number; headHash: string }>();
  const append = async (sessionId: string, events: RecurEventInput[]) => {
    const head = heads.get(sessionId) ?? { nextSeq: 0, headHash: ZERO_HASH };
    const parentId = sessionId.includes('/') ? sessionId.slice(0, sessionId.lastIndexOf('/')) : null;
    const rootId = sessionId.startsWith('harness:') ? sessionId : sessionId.split('/')[0];
    heads.set(sessionId, await log.appendEvents({ sessionId, rootId, parentId, fromSeq: head.nextSeq, prevHash: head.headHash, events: events.map((event, i) => ({ ts: 1_700_000_000_000 + i, event })) }));
  };
  const started = (name: string, depth: number): RecurEventInput => ({ type: 'SessionStarted', task: 't', name, model: 'scripted', depth, maxDepth: 2, maxTurns: 5, cellTimeoutSeconds: 60 });
  const done = (answer: string): RecurEventInput => ({ type: 'SessionCompleted', answer });
  const ids = (events: readonly StoredEvent[]) => events.map((e) => e.eventId);

  const scans: string[] = [];
  const cache = (record: boolean) => new TreeCache({
    scan: (from, onRecord) => {
      if (record) scans.push(from ? [...from].map(([p, o]) => `${p}:${o}`).join(',') : 'start');
      return scanTopic({ kafka, topic, from, onRecord });
    },
    start: (r) => index.lookup(r),
    ends: () => highWatermarks(kafka, topic),
    maxBytes: 64 * 2 ** 20,
  });
  /** What a tree cache without a follower reads. */
  const scanned = async (id: string) => (await cache(false).read(id)).tree;

  const trees = cache(true);
  const catalog = catalogFollower(kafka, topic, trees);

  beforeAll(async () => {
    await ensureEventTopicAccess({ ...config, kafka: { ...config.kafka, partitions: 3 } });
    await producer.connect();
    await append(root, [started('root', 0), { type: 'SubagentSpawned', childId: child, name: 'helper', task: 'add', taskBlob: null, model: 'scripted', spec: null, requestId: null }]);
    await append(child, [started('helper', 1)]);
    await append(`harness:${root}`, [{
      type: 'HarnessEdited', action: 'set', kind: 'prompt', name: 'style', before: null, after: 'be brief', trigger: { eventIds: [`${root}/1`], reason: 'test' },
      source: 'agent', requestedBy: root, result: 'applied', error: null, revertOf: null, refineId: null,
    }]);
    await until('the catalog to catch up', async () => ((await catalog.reply()).complete ? true : undefined));
  });

  afterAll(async () => {
    await catalog.close();
    await producer.disconnect();
  });

  it('opens a tree the follower read without a scan, holding what a scan finds, and what was written just before the read', async () => {
    const view = await trees.read(root);
    expect(ids(view.tree.events)).toEqual(ids((await scanned(root)).events));
    expect(ids(view.tree.events)).toEqual([`${root}/0`, `${root}/1`, `${child}/0`]);
    expect(ids(view.harness.events)).toEqual([`harness:${root}/0`]);

    await append(child, [done('3')]);
    await append(root, [done('3')]);
    const later = await trees.read(root); // no wait here: the read waits for the follower to pass what is written
    expect(ids(later.tree.events)).toEqual([`${root}/0`, `${root}/1`, `${root}/2`, `${child}/0`, `${child}/1`]);
    expect(ids((await trees.read(child)).tree.events)).toEqual([`${child}/0`, `${child}/1`]);
    expect(scans).toEqual([]);
  });

  it('once the follower stops, a scan reads on from where it got to and counts nothing twice', async () => {
    await catalog.close();
    await append(root, [{ type: 'SessionClosed', reason: 'test', round: 0, idle: true }]);
    const view = await trees.read(root);
    expect(scans).toHaveLength(1);
    expect(scans[0]).not.toBe('start');
    expect(ids(view.tree.events)).toEqual(ids((await scanned(root)).events));
    expect(view.tree.events).toHaveLength(6);
    expect(view.tree.duplicates).toBe(0);
  });
});
