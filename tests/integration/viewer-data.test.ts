import { Partitioners } from 'kafkajs';
import WebSocket from 'ws';
import { createLocalBlobStore } from '../../activities/blob-store';
import { ZERO_HASH, encodeEvent, type RecurEventInput, type StoredEvent } from '../../schemas';
import type { CatalogReply, StreamFrame } from '../../services/daemon/api-types';
import { TREE_CHUNK, parseTreeBody } from '../../services/daemon/tree-lines';
import { ownDaemonHome } from '../helpers/own-daemon-home';
import type { Daemon } from '../../services/daemon/daemon';
import { stackPaths } from '../../config/home-paths';
import type { TreeVerdict } from '../../log/verify-tree';
import { until } from '../helpers/poll-tree-log';

/**
 * The viewer's read routes on a real daemon in-process against the real Kafka (and Temporal for
 * the daemon itself), on a topic, task queue and home of their own; events are appended with the
 * real event-log activities and the home's signing key, as a worker appends them.
 */
describe('the viewer read routes on the real stack', () => {
  const { suffix, config, kafka, producer, log, start } = ownDaemonHome('viewer-it');
  let daemon: Daemon;

  const root = `v${suffix}`;
  const child = `${root}/helper`;
  const T = 1_700_000_000_000;
  const heads = new Map<string, { nextSeq: number; headHash: string }>();
  /** Appends to a session's log after what this test appended to it before; event i gets time `at + i`. */
  const append = async (sessionId: string, at: number, events: RecurEventInput[]) => {
    const head = heads.get(sessionId) ?? { nextSeq: 0, headHash: ZERO_HASH };
    const parentId = sessionId.includes('/') ? sessionId.slice(0, sessionId.lastIndexOf('/')) : null;
    const r = await log.appendEvents({
      sessionId, rootId: sessionId.startsWith('harness:') ? sessionId : sessionId.split('/')[0], parentId, fromSeq: head.nextSeq, prevHash: head.headHash,
      events: events.map((event, i) => ({ ts: at + i, event })),
    });
    heads.set(sessionId, r);
  };
  const called = (costUsd: number): RecurEventInput => ({
    type: 'ModelCalled', turn: 1, model: 'scripted', provider: 'scripted', tokensIn: 100, tokensOut: 20, costUsd, latencyMs: 3, response: 'r', stopReason: 'end_turn', toolCalls: [],
  });

  beforeAll(async () => {
    daemon = await start(2);
    await append(root, T, [
      { type: 'SessionStarted', task: 'sum the numbers', name: 'root', model: 'openai/gpt-4o', depth: 0, maxDepth: 2, maxTurns: 5, cellTimeoutSeconds: 60 },
      called(0.25),
      { type: 'SubagentSpawned', childId: child, name: 'helper', task: 'add', taskBlob: null, model: 'scripted', spec: null, requestId: null },
    ]);
    // Earlier times than the spawn: only the causal order puts the child after it.
    await append(child, T - 500, [
      { type: 'SessionStarted', task: 'add', name: 'helper', model: 'scripted', depth: 1, maxDepth: 2, maxTurns: 5, cellTimeoutSeconds: 60 },
      called(0.5),
      { type: 'SessionCompleted', answer: '3' },
    ]);
    await append(`harness:${root}`, T + 10, [{
      type: 'HarnessEdited', action: 'set', kind: 'prompt', name: 'style', before: null, after: 'be brief', trigger: { eventIds: [`${root}/1`], reason: 'test' },
      source: 'agent', requestedBy: root, result: 'applied', error: null, revertOf: null, refineId: null,
    }]);
    await producer.send({ topic: config.kafka.topic, messages: [{ key: `junk${suffix}`, value: Buffer.from('not avro') }] });
  });

  afterAll(async () => {
    await daemon?.close();
    await producer.disconnect();
  });

  const get = (path: string) => fetch(`${daemon.url}${path}`, { headers: { authorization: `Bearer ${daemon.token}` } });
  const json = async <T>(path: string) => (await (await get(path)).json()) as T;
  const tree = async (path: string) => parseTreeBody(await (await get(path)).text());
  const ids = (events: readonly StoredEvent[]) => events.map((e) => e.eventId);

  it('/tree: every event of the tree in causal order, the harness log, and a cursor the WebSocket goes on from without repeats', async () => {
    const whole = await tree(`/v1/sessions/${root}/tree`);
    expect(ids(whole.events)).toEqual([`${root}/0`, `${root}/1`, `${root}/2`, `${child}/0`, `${child}/1`, `${child}/2`]);
    expect(whole.harness).toEqual([expect.objectContaining({ eventId: `harness:${root}/0`, type: 'HarnessEdited', event: expect.objectContaining({ after: 'be brief' }) })]);
    expect(whole.cursor).toEqual({ [root]: 2, [child]: 2 });
    expect(whole.problems).toEqual([]);

    const ws = new WebSocket(`${daemon.url.replace('http', 'ws')}/v1/sessions/${root}/events?after=${encodeURIComponent(JSON.stringify(whole.cursor))}`, {
      headers: { authorization: `Bearer ${daemon.token}` },
    });
    const first = new Promise<StreamFrame>((resolve) => ws.once('message', (data) => resolve(JSON.parse(data.toString()))));
    await new Promise((resolve) => ws.once('open', resolve));
    await append(root, T + 20, [{ type: 'SubagentCompleted', childId: child, status: 'completed', answer: '3', answerBlob: null, error: null }]);
    expect(await first).toMatchObject({ eventId: `${root}/3`, type: 'SubagentCompleted' });
    ws.close();
  });

  it('/verify: ok for an intact tree; for a tree with a forged record, the forged event', async () => {
    const intact = await json<TreeVerdict>(`/v1/sessions/${root}/verify`);
    expect(intact).toMatchObject({ ok: true, sessionId: root, faults: [] });
    expect(intact.sessions.map((x) => x.sessionId)).toEqual([root, child]);

    const forgedTree = `f${suffix}`;
    await append(forgedTree, T, [{ type: 'SessionStarted', task: 'be audited', name: 'root', model: 'scripted', depth: 0, maxDepth: 2, maxTurns: 5, cellTimeoutSeconds: 60 }]);
    const [head] = (await tree(`/v1/sessions/${forgedTree}/tree`)).events;
    // Chained exactly as Recur chains it, with Recur's codec, but without the home's key.
    const forged = encodeEvent({ sessionId: forgedTree, rootId: forgedTree, parentId: null, seq: 1, ts: head.ts + 1, prevHash: head.hash, event: { type: 'SessionCompleted', answer: 'forged' } });
    const forger = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await forger.connect();
    await forger.send({ topic: config.kafka.topic, acks: -1, messages: [{ key: forgedTree, value: forged.value }] });
    await forger.disconnect();
    const verdict = await json<TreeVerdict>(`/v1/sessions/${forgedTree}/verify`);
    expect(verdict.ok).toBe(false);
    expect(verdict.faults.map((f) => `${f.eventId} ${f.fault}`)).toEqual([`${forgedTree}/1 unsigned`]);
  });

  it('/blobs: serves a blob from the store the worker writes to, whole or cut, with its size', async () => {
    const text = 'x'.repeat(3000);
    const ref = await createLocalBlobStore(stackPaths(config).blobs).put(Buffer.from(text));
    const whole = await get(`/v1/blobs/${ref.sha256}`);
    expect([whole.status, whole.headers.get('x-recur-blob-size'), await whole.text()]).toEqual([200, '3000', text]);
    const cut = await get(`/v1/blobs/${ref.sha256}?max=100`);
    expect([cut.status, cut.headers.get('x-recur-blob-size'), (await cut.text()).length]).toEqual([200, '3000', 100]);
  });

  // Large enough for the heap merge and the cursor to matter; the render bench (bench/viewer-render.ts) measures 100,000.
  it('/tree of a 10,000-event tree (a root and 49 children): all of it in one reply of ten chunks, each child after its spawn', async () => {
    const big = `b${suffix}`;
    const kids = Array.from({ length: 49 }, (_, i) => `${big}/k${i}`);
    const per = 200;
    const cells = (from: number, n: number): RecurEventInput[] => Array.from({ length: n }, (_, i) => ({ type: 'CellRequested', cellId: `c${from + i}`, code: `x = ${from + i}`, codeBlob: null, toolCallId: null }));
    const startedAs = (name: string, depth: number): RecurEventInput => ({ type: 'SessionStarted', task: 'big', name, model: 'scripted', depth, maxDepth: 2, maxTurns: 5, cellTimeoutSeconds: 60 });
    await append(big, T, [startedAs('root', 0), ...kids.map((id): RecurEventInput => ({ type: 'SubagentSpawned', childId: id, name: id.split('/')[1], task: 't', taskBlob: null, model: 'scripted', spec: null, requestId: null }))]);
    await append(big, T + 100, cells(0, per - 1 - kids.length));
    for (const id of kids) {
      await append(id, T, [startedAs(id.split('/')[1], 1), ...cells(0, 99)]);
      await append(id, T + 1000, cells(99, per - 100));
    }
    const res = await get(`/v1/sessions/${big}/tree`);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await res.text()).split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1 + 10_000 / TREE_CHUNK + 1);
    const reply = parseTreeBody(lines.join('\n'));
    expect(reply.events).toHaveLength(10_000);
    const at = new Map(reply.events.map((e, i) => [e.eventId, i]));
    for (const [i, id] of kids.entries()) expect(at.get(`${id}/0`)!).toBeGreaterThan(at.get(`${big}/${i + 1}`)!);
    expect(reply.cursor).toEqual(Object.fromEntries([[big, per - 1], ...kids.map((id) => [id, per - 1])]));
  });

  it('/catalog: once caught up, lists the root with its task, model, cost, tokens, turns and sessions; harness logs are no roots; an undecodable record is counted', async () => {
    const reply = await until('the catalog to catch up', async () => {
      const r = await json<CatalogReply>('/v1/catalog');
      return r.complete ? r : undefined;
    });
    const entry = reply.roots.find((r) => r.sessionId === root);
    expect(entry).toMatchObject({ task: 'sum the numbers', model: 'openai/gpt-4o', tokensIn: 200, tokensOut: 40, turns: 2, sessions: 2, ended: null, startTs: T - 500 });
    expect(entry!.costUsd).toBeCloseTo(0.75, 10);
    expect(reply.roots.filter((r) => r.sessionId.startsWith('harness:'))).toEqual([]);
    expect(reply.undecodable).toBe(1);
    expect(reply.roots.map((r) => r.sessionId)).toEqual(expect.arrayContaining([root, `f${suffix}`, `b${suffix}`]));
  });
});
