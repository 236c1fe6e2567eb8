import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import WebSocket from 'ws';
import { ZERO_HASH, type RecurEventInput } from '../../schemas';
import { temporalAddress } from '../../config/connections';
import { readSessionLog } from '../../services/projector';
import { isAlive } from '../../services/home/process';
import type { StreamFrame } from '../../services/daemon/api-types';
import { ownDaemonHome } from '../helpers/own-daemon-home';
import type { Daemon } from '../../services/daemon/daemon';
import { daemonPaths } from '../../services/daemon/paths';
import type { SessionInput } from '../../workflows/session-types';
import { sandboxKey, sandboxRecord } from '../../services/sandbox';

/**
 * The daemon in-process against the real Temporal and Kafka, supervising a dummy worker. It gets
 * its own home, port, task queue and topic, so nothing here can pick up or disturb other tests'
 * sessions (no worker polls its task queue: started workflows stay running until the test ends them).
 */
describe('daemon API on the real stack', () => {
  const { suffix, config, kafka, producer, index, log, start } = ownDaemonHome('daemon-it');
  let daemon: Daemon;
  let connection: Connection;
  let client: Client;
  const started: string[] = [];

  beforeAll(async () => {
    daemon = await start(2);
    connection = await Connection.connect({ address: temporalAddress(config) });
    client = new Client({ connection, namespace: config.temporal.namespace });
  });

  afterAll(async () => {
    for (const id of started) await client.workflow.getHandle(id).terminate('test over').catch(() => undefined);
    await daemon?.close();
    await connection?.close();
    await producer.disconnect();
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${daemon.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const enc = encodeURIComponent;

  it('reports the supervised worker as alive', async () => {
    const { status, body } = await api('GET', '/v1/health');
    expect(status).toBe(200);
    expect(body).toEqual({ ok: true, worker: { pid: daemon.worker.state().pid, restarts: 0, alive: true } });
  });

  it('starts a root session workflow, lists it, delivers a message to it and cancels it', async () => {
    const { status, body } = await api('POST', '/v1/sessions', { task: 'add 2 and 2', model: 'openai/gpt-4o', limits: { maxTurns: 4 } });
    expect(status).toBe(201);
    const id: string = body.sessionId;
    started.push(id);
    const handle = client.workflow.getHandle(id);
    const described = await handle.describe();
    expect(described).toMatchObject({ type: 'agentSessionWorkflow', taskQueue: config.temporal.taskQueue, status: { name: 'RUNNING' } });
    const history = await handle.fetchHistory();
    const input = defaultPayloadConverter.fromPayload<SessionInput>(
      history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0]);
    const { policyFile: _file, ...approvals } = config.approvals;
    expect(input).toEqual({
      sessionId: id, rootId: id, parentId: null, name: 'root', task: 'add 2 and 2', model: 'openai/gpt-4o', depth: 0, approvals,
      // A root the daemon starts stays open after its answer (docs/conversations.md).
      retain: true,
      // No cwd in the request: the session keeps a directory of its own under the home.
      workspace: join(config.home, 'workspaces', sandboxKey(id)),
      limits: { maxTurns: 4, maxTokens: null, maxSeconds: null, cellTimeoutSeconds: config.agent.cellTimeoutSeconds, maxDepth: config.agent.maxDepth,
        turnsPerRun: config.agent.turnsPerRun, snapshotEveryCells: config.agent.snapshotEveryCells, idleUnloadSeconds: config.agent.idleUnloadSeconds,
        autoRefineTurns: config.harness.autoRefineTurns, compactAtTokens: config.agent.compactAtTokens,
        maxChildren: config.agent.maxChildren, maxTreeSessions: config.agent.maxTreeSessions,
        messagesPerMinute: config.agent.messagesPerMinute, messageBurst: config.agent.messageBurst, sandbox: sandboxRecord(config.sandbox) },
    });

    // Visibility is eventually consistent: wait for the new run to be listed.
    let list = await api('GET', '/v1/sessions');
    while (!list.body.sessions.some((x: { sessionId: string }) => x.sessionId === id)) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      list = await api('GET', '/v1/sessions');
    }
    expect(list.body.sessions).toContainEqual({ sessionId: id, status: 'running', startTime: described.startTime.toISOString(), closeTime: null, phase: null });
    const one = await api('GET', `/v1/sessions/${enc(id)}`);
    expect(one.body).toMatchObject({ sessionId: id, status: 'running', runId: described.runId, live: null, queryError: expect.any(String) });

    const sent = await api('POST', `/v1/sessions/${enc(id)}/messages`, { text: 'use python' });
    expect(sent.status).toBe(200);
    const killed = await api('POST', `/v1/sessions/${enc(id)}/kill`);
    expect(killed.status).toBe(200);

    const events = (await handle.fetchHistory()).events!;
    const signal = events.find((e) => e.workflowExecutionSignaledEventAttributes)!.workflowExecutionSignaledEventAttributes!;
    expect(signal.signalName).toBe('deliverMessage');
    expect(defaultPayloadConverter.fromPayload(signal.input!.payloads![0])).toEqual({ messageId: sent.body.messageId, from: 'user', text: 'use python' });
    expect(events.some((e) => e.workflowExecutionCancelRequestedEventAttributes)).toBe(true);

    await handle.terminate('test over');
    expect((await api('POST', `/v1/sessions/${enc(id)}/messages`, { text: 'too late' })).status).toBe(404);
    expect((await api('GET', `/v1/sessions/${enc(id)}`)).body).toMatchObject({ status: 'terminated', closeTime: expect.any(String) });
  });

  it('answers 404 for a session Temporal does not know', async () => {
    expect((await api('POST', `/v1/sessions/nosuch${suffix}/kill`)).status).toBe(404);
    expect((await api('GET', `/v1/sessions/nosuch${suffix}`)).status).toBe(404);
  });

  it("streams a session tree's events from Kafka past the `after` cursor, then live ones, and problems", async () => {
    const root = `s${suffix}`;
    const child = `${root}/helper`;
    const append = (sessionId: string, fromSeq: number, prevHash: string, events: RecurEventInput[]) =>
      log.appendEvents({
        sessionId, rootId: sessionId.split('/')[0], parentId: sessionId === child ? root : null, fromSeq, prevHash,
        events: events.map((event, i) => ({ ts: 1_700_000_000_000 + fromSeq + i, event })),
      });
    const r1 = await append(root, 0, ZERO_HASH, [
      { type: 'SessionStarted', task: 't', name: 'root', model: 'scripted', depth: 0, maxDepth: 2, maxTurns: 5, cellTimeoutSeconds: 60 },
      { type: 'CellRequested', cellId: `${root}/1`, code: 'rlm("x")' },
      { type: 'SubagentSpawned', childId: child, name: 'helper', task: 'x', model: 'scripted' },
    ]);
    await append(child, 0, ZERO_HASH, [{ type: 'SessionCompleted', answer: 'x done' }]);
    await append(`other${suffix}`, 0, ZERO_HASH, [{ type: 'SessionCompleted', answer: 'not in the tree' }]);
    await producer.send({ topic: config.kafka.topic, messages: [{ key: root, value: Buffer.from('not avro') }] });

    const after = enc(JSON.stringify({ [root]: 0 }));
    const ws = new WebSocket(`${daemon.url.replace('http', 'ws')}/v1/sessions/${enc(root)}/events?after=${after}`, {
      headers: { authorization: `Bearer ${daemon.token}` },
    });
    const frames: StreamFrame[] = [];
    let wanted = 4;
    let arrived: () => void = () => undefined;
    ws.on('message', (data) => {
      frames.push(JSON.parse(data.toString()));
      if (frames.length === wanted) arrived();
    });
    await new Promise<void>((resolve) => (arrived = resolve));
    const ids = (list: StreamFrame[]) => list.map((f) => ('eventId' in f ? f.eventId : `problem:${f.problem}`)).sort();
    expect(ids(frames)).toEqual([`${child}/0`, `${root}/1`, `${root}/2`, 'problem:undecodable'].sort());
    expect(frames.find((f) => 'eventId' in f && f.eventId === `${root}/1`)).toMatchObject({
      sessionId: root, seq: 1, type: 'CellRequested', prevHash: expect.stringMatching(/^[0-9a-f]{64}$/), event: { code: 'rlm("x")' },
    });

    wanted = 5;
    const live = new Promise<void>((resolve) => (arrived = resolve));
    await append(root, r1.nextSeq, r1.headHash, [{ type: 'SessionCompleted', answer: 'done' }]);
    await live;
    expect(frames[4]).toMatchObject({ eventId: `${root}/3`, type: 'SessionCompleted', event: { answer: 'done' } });
    ws.close();

    const whole = await api('GET', `/v1/sessions/${enc(root)}/log`);
    expect(whole.body.events.map((e: { eventId: string }) => e.eventId)).toEqual([`${root}/0`, `${root}/1`, `${root}/2`, `${root}/3`, `${child}/0`]);
    expect(whole.body.problems).toEqual([expect.objectContaining({ problem: 'undecodable', key: root })]);
  });

  it("reads a tree from its offset-index entry instead of offset 0, and pages its log with ?after&limit", async () => {
    const answers = (n: number): RecurEventInput[] => Array.from({ length: n }, (_, i) => ({ type: 'SessionCompleted', answer: String(i) }));
    const append = (sessionId: string, parentId: string | null, n: number) => log.appendEvents({
      sessionId, rootId: sessionId.split('/')[0], parentId, fromSeq: 0, prevHash: ZERO_HASH,
      events: answers(n).map((event, i) => ({ ts: 1_700_000_000_000 + i, event })),
    });
    const earlier = `p${suffix}`;
    const tree = `q${suffix}`;
    await append(earlier, null, 30);
    await append(tree, null, 12);
    await append(`${tree}/kid`, tree, 3);

    const entry = index.lookup(tree);
    expect(entry).not.toBeNull();
    // Everything logged before the tree (the earlier tree's 30 records at least) lies before its entry.
    expect([...entry!.values()].reduce((a, b) => a + b, 0n)).toBeGreaterThanOrEqual(30n);
    const indexed = await readSessionLog({ kafka, topic: config.kafka.topic, sessionId: tree, index });
    const whole = await readSessionLog({ kafka, topic: config.kafka.topic, sessionId: tree });
    for (const [partition, offset] of Object.entries(indexed.scanned.from)) expect(BigInt(offset)).toBe(entry!.get(Number(partition)));
    expect(indexed.scanned.records).toBe(15); // the tree's own records, nothing before them
    expect(whole.scanned.records).toBeGreaterThanOrEqual(45);
    expect(indexed.events).toEqual(whole.events);
    expect((await readSessionLog({ kafka, topic: config.kafka.topic, sessionId: `${tree}/kid`, descendants: false, index })).events)
      .toEqual(whole.events.filter((e) => e.sessionId === `${tree}/kid`));

    const paged: string[] = [];
    let after = '';
    for (let more = true; more;) {
      const { status, body } = await api('GET', `/v1/sessions/${enc(tree)}/log?limit=4${after}`);
      expect(status).toBe(200);
      expect(body.events.length).toBeLessThanOrEqual(4);
      paged.push(...body.events.map((e: { eventId: string }) => e.eventId));
      after = `&after=${enc(JSON.stringify(body.nextCursor))}`;
      more = body.more;
    }
    expect(paged).toEqual(whole.events.map((e) => e.eventId));
  });

  it('shutdown closes open event streams with 1001, stops the worker and removes the token', async () => {
    const ws = new WebSocket(`${daemon.url.replace('http', 'ws')}/v1/sessions/quiet${suffix}/events`, {
      headers: { authorization: `Bearer ${daemon.token}` },
    });
    await new Promise((resolve) => ws.once('open', resolve));
    const closeCode = new Promise<number>((resolve) => ws.once('close', resolve));
    const { pid } = daemon.worker.state();
    await daemon.close();
    expect(await closeCode).toBe(1001);
    expect(isAlive(pid!)).toBe(false);
    expect(existsSync(daemonPaths(config).token)).toBe(false);
    expect(existsSync(daemonPaths(config).workerPid)).toBe(false);
  });
});
