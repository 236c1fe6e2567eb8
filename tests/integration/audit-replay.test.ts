import { randomUUID } from 'node:crypto';
import { ServerConnection, SessionAPI } from '@jupyterlab/services';
import { Partitioners, type Producer } from 'kafkajs';
import { createLocalBlobStore } from '../../activities/blob-store';
import { createEventLogActivities, createEventLogProducer } from '../../activities/event-log';
import { loadConfig } from '../../config';
import { ZERO_HASH, encodeEvent, encodeEventBatch, type BlobRef, type RecurEventInput, type StoredEvent } from '../../schemas';
import { kafkaClient } from '../../config/connections';
import { jupyterConnection, stackPaths } from '../../config/home-paths';
import { homeKeyring, homeSigner } from '../../services/home/log-keys';
import { readLogInOrder } from '../../services/projector/read-log-in-order';
import { verifyTree } from '../../log/verify-tree';
import { ensureEventTopicAccess } from '../../services/devstack';
import { cliInProcess, type CliRun } from '../helpers/cli-in-process';

const config = loadConfig();
const kafka = kafkaClient(config, 'writer', 'audit-it');
const topic = `recur-audit-test-${randomUUID()}`;
const producer = createEventLogProducer(kafka);
const signer = homeSigner(stackPaths(config).keys);
const { appendEvents } = createEventLogActivities({ kafka, topic, producer, signer });
const blobs = createLocalBlobStore(stackPaths(config).blobs);
let raw: Producer;

const T0 = 1_700_000_000_000;
const started = (name: string, depth: number, parentId: string | null = null): RecurEventInput => ({
  type: 'SessionStarted', task: `task of ${name}`, name, model: 'scripted', parentId, depth, maxDepth: 2, maxTurns: 5, cellTimeoutSeconds: 30,
});
const model = (turn: number): RecurEventInput => ({
  type: 'ModelCalled', turn, model: 'scripted', provider: 'scripted', tokensIn: 10, tokensOut: 5, costUsd: 0, latencyMs: 2, response: `turn ${turn}`, stopReason: 'end_turn',
});

/** Appends to one session's log through the append activity, batch by batch, as its workflow would. */
function sessionLog(sessionId: string) {
  const at = sessionId.lastIndexOf('/');
  const ids = { sessionId, rootId: sessionId.split('/')[0], parentId: at < 0 ? null : sessionId.slice(0, at) };
  let head = { nextSeq: 0, headHash: ZERO_HASH };
  const append = async (ts: number, ...events: RecurEventInput[]): Promise<void> => {
    head = await appendEvents({ ...ids, fromSeq: head.nextSeq, prevHash: head.headHash, events: events.map((event, i) => ({ ts: ts + i, event })) });
  };
  return {
    append,
    /** CellRequested, then its CellExecuted with `outputs`. */
    cell: async (ts: number, code: string, outputs: string, extra: { outputsBlob?: BlobRef } = {}): Promise<void> => {
      const requestId = `${sessionId}/${head.nextSeq}`;
      await append(ts, { type: 'CellRequested', cellId: requestId, code });
      await append(ts + 5, { type: 'CellExecuted', requestId, code, status: 'ok', outputs, durationMs: 5, ...extra });
    },
  };
}

/**
 * Root runs print(6*7) (logged as 41 when `wrong`), spawns `kid`, whose clock runs behind the
 * root's, gets a message from it (stamped before kid's MessageSent, as the workflow logs the send
 * after signalling), learns of its end, and runs a cell whose output went to the blob store. The
 * kid runs two dependent cells and a host call.
 */
async function writeTree(id: string, opts: { wrong?: boolean } = {}): Promise<void> {
  const kid = `${id}/kid`;
  const big = 'ab'.repeat(6000);
  const ref = await blobs.put(Buffer.from(big));
  const root = sessionLog(id);
  const child = sessionLog(kid);
  await root.append(T0, started('root', 0));
  await root.append(T0 + 10, model(1));
  await root.cell(T0 + 20, 'print(6*7)', opts.wrong ? '41' : '42\n');
  await root.append(T0 + 30, { type: 'SubagentSpawned', childId: kid, name: 'kid', task: 'say hi', model: 'scripted' });
  await child.append(T0 + 1, started('kid', 1, id));
  await child.cell(T0 + 2, 'x = 6*7', '');
  await child.cell(T0 + 3, 'print(x + 1)', '43');
  await child.cell(T0 + 4, 'agent_message.send("hi")', "{'ok': True}");
  await root.append(T0 + 40, { type: 'MessageDelivered', messageId: `${kid}#m1`, from: kid, to: id, text: 'hi', via: 'prompt' });
  await child.append(T0 + 50, { type: 'MessageSent', messageId: `${kid}#m1`, from: kid, to: id, text: 'hi' });
  await child.append(T0 + 60, { type: 'SessionCompleted', answer: 'said hi' });
  await root.append(T0 + 70, { type: 'SubagentCompleted', childId: kid, status: 'completed', answer: 'said hi' });
  await root.append(T0 + 71, { type: 'MessageDelivered', messageId: `${kid}#outcome`, from: kid, to: id, text: '[answer from kid] said hi', via: 'prompt' });
  await root.append(T0 + 75, model(2));
  await root.cell(T0 + 80, 'print("ab" * 6000)', `${big.slice(0, 100)}\n[output truncated]`, { outputsBlob: ref });
  await root.append(T0 + 90, { type: 'SessionCompleted', answer: '42' });
}


beforeAll(async () => {
  await ensureEventTopicAccess({ ...config, kafka: { ...config.kafka, partitions: 3 } }, topic);
  raw = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await raw.connect();
  process.env.RECUR_KAFKA_TOPIC = topic; // what the CLI commands read through loadConfig()
});
afterAll(async () => {
  delete process.env.RECUR_KAFKA_TOPIC;
  await raw.disconnect();
  await producer.disconnect();
});

/** Writes records as given, one at a time, so they land in this order (keyed: one partition per session). */
async function sendRaw(sessionId: string, values: readonly Buffer[]): Promise<void> {
  for (const value of values) await raw.send({ topic, messages: [{ key: sessionId, value }] });
}

function freshSession(id: string): Buffer[] {
  const events: RecurEventInput[] = [started('root', 0), model(1), model(2), model(3), { type: 'SessionCompleted', answer: 'ok' }];
  return [...encodeEventBatch({ sessionId: id, rootId: id, parentId: null, fromSeq: 0, prevHash: ZERO_HASH, events: events.map((event, i) => ({ ts: T0 + i, event })) }, signer).values];
}

const cli = (args: string[]) => cliInProcess(args);
const failure = (r: CliRun) => ({ code: r.code, message: r.message });

describe('audit verify and replay from the event log alone', () => {
  test('a valid tree written by the append activity verifies, from the library and the CLI', async () => {
    const id = `a-${randomUUID()}`;
    await writeTree(id);
    const verdict = verifyTree(id, await readLogInOrder({ kafka, topic, sessionId: id }), homeKeyring(stackPaths(config).keys));
    expect(verdict).toMatchObject({ ok: true, events: 21, faults: [] });
    expect(verdict.sessions.map((s) => [s.sessionId, s.nextSeq, s.ended])).toEqual([[id, 12, 'completed'], [`${id}/kid`, 9, 'completed']]);

    const human = await cli(['audit', 'verify', id]);
    expect(human.code).toBe(0);
    expect(human.out[0]).toBe(`verified ${id}: 2 sessions, 21 events; every chain intact, every event signed by a known key, tree consistent`);
    const json = await cli(['audit', 'verify', id, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out[0])).toMatchObject({ ok: true, sessionId: id, events: 21, first: null });
  });

  test('an edited copy appended with a raw producer is caught, naming the event', async () => {
    const id = `e-${randomUUID()}`;
    await writeTree(id);
    const log = await readLogInOrder({ kafka, topic, sessionId: id });
    const original = log.sessions.get(id)![3] as StoredEvent<Extract<StoredEvent['event'], { type: 'CellExecuted' }>>;
    expect(original.event).toMatchObject({ type: 'CellExecuted', outputs: '42\n' });
    const edited = encodeEvent({ ...original, event: { ...original.event, outputs: '41\n' } });
    await sendRaw(id, [edited.value]);

    const r = await cli(['audit', 'verify', id, '--json']);
    expect(failure(r)).toEqual({ code: 3, message: expect.stringContaining(`failed at ${id}/3: conflict: `) });
    expect(JSON.parse(r.out[0]).first).toMatchObject({ fault: 'conflict', eventId: `${id}/3`, sessionId: id, seq: 3 });
    expect(JSON.parse(r.out[0]).first.detail).toContain('that copy: no signature');
  });

  test('a session missing seq 2 fails as a gap at seq 3', async () => {
    const id = `g-${randomUUID()}`;
    const values = freshSession(id);
    await sendRaw(id, [...values.slice(0, 2), ...values.slice(3)]);
    const r = await cli(['audit', 'verify', id]);
    expect(failure(r)).toEqual({ code: 3, message: `audit of ${id} failed at ${id}/3: gap: seq 2 is missing before seq 3` });
    expect(r.out[0]).toBe(`FAILED ${id}: 1 fault in 1 session, 4 events`);
  });

  test('seq 3 written before seq 2 fails as a reorder at seq 3', async () => {
    const id = `o-${randomUUID()}`;
    const [v0, v1, v2, v3, v4] = freshSession(id);
    await sendRaw(id, [v0, v1, v3, v2, v4]);
    const r = await cli(['audit', 'verify', id, '--json']);
    expect(failure(r).code).toBe(3);
    expect(JSON.parse(r.out[0]).first).toMatchObject({ fault: 'reorder', eventId: `${id}/3`, detail: 'seq 3 comes before seq 2' });
  });

  test('replay --json prints every event once, in causal order', async () => {
    const id = `j-${randomUUID()}`;
    const kid = `${id}/kid`;
    await writeTree(id);
    const r = await cli(['replay', id, '--json']);
    expect(r.code).toBe(0);
    expect(r.err).toEqual([]);
    const lines = r.out.map((l) => JSON.parse(l) as StoredEvent & { promptFrom?: string[] });
    const order = lines.map((e) => e.eventId);
    expect(new Set(order).size).toBe(21);
    const pos = (eventId: string) => order.indexOf(eventId);
    for (const [sid, n] of [[id, 12], [kid, 9]] as const) {
      expect(lines.filter((e) => e.sessionId === sid).map((e) => e.seq)).toEqual(Array.from({ length: n }, (_, i) => i));
    }
    expect(pos(`${kid}/0`)).toBe(pos(`${id}/4`) + 1); // right after its spawn, though stamped 29 ms before it
    expect(pos(`${id}/5`)).toBeGreaterThan(pos(`${kid}/7`)); // delivered after sent
    expect(pos(`${id}/6`)).toBeGreaterThan(pos(`${kid}/8`)); // SubagentCompleted after the child's end
    expect(pos(`${id}/7`)).toBeGreaterThan(pos(`${kid}/8`)); // the outcome message too
    expect(lines[pos(`${id}/8`)].promptFrom).toEqual([`${id}/0`, `${id}/1`, `${id}/3`, `${id}/5`, `${id}/7`]);

    const human = await cli(['replay', id]);
    expect(human.out[0]).toMatch(new RegExp(`^replay of ${id}: 2 sessions, 21 events over 0\\.090s`));
    expect(human.out.some((l) => /^ +\+0\.001s {3}\S+\/kid #0 SessionStarted/.test(l))).toBe(true);
    expect(human.out.some((l) => /outputsBlob: blob [0-9a-f]{16} \(12000 bytes\)/.test(l))).toBe(true);
  });

  test('replay --verify re-runs deterministic cells with no differences, and names host calls', async () => {
    const id = `v-${randomUUID()}`;
    await writeTree(id);
    const r = await cli(['replay', id, '--verify', '--json']);
    expect(failure(r)).toEqual({ code: 0, message: '' });
    const reports = r.out.map((l) => JSON.parse(l));
    expect(reports.filter((x) => x.kind === 'cell').map((x) => [x.eventId, x.verdict])).toEqual([
      [`${id}/3`, 'same'], [`${id}/10`, 'same'],
      [`${id}/kid/2`, 'same'], [`${id}/kid/4`, 'same'], [`${id}/kid/6`, 'host-call'],
    ]);
    expect(reports.at(-1)).toEqual({ kind: 'summary', cells: 5, same: 4, differs: 0, hostCall: 1, skipped: 0, unchecked: 0 });
    expect(reports[0]).not.toHaveProperty('logged');
    expect(reports[4].replay).toMatchObject({ status: 'error', errorName: 'RuntimeError', errorValue: expect.stringContaining('not connected to a Recur host') });
    await expectNoReplayKernels(id);
  });

  test('replay --verify reports the cell whose logged output is wrong', async () => {
    const id = `w-${randomUUID()}`;
    await writeTree(id, { wrong: true });
    const r = await cli(['replay', id, '--verify']);
    expect(failure(r)).toEqual({ code: 3, message: `1 cell(s) do not match the log; first ${id}/3: output line 1: logged "41", replay "42"` });
    expect(r.out.filter((l) => l.startsWith('DIFFERS'))).toEqual([expect.stringContaining(`#3  "print(6*7)"  output line 1: logged "41", replay "42"`)]);
    expect(r.out.at(-1)).toBe('replayed 5 cells: 3 same, 1 differ, 1 not replayable (host call), 0 skipped, 0 unchecked');
    await expectNoReplayKernels(id);
  });
});

/** The replay's kernels are gone from the Jupyter server once the command returns. */
async function expectNoReplayKernels(id: string): Promise<void> {
  const settings = ServerConnection.makeSettings(jupyterConnection(config));
  const left = (await SessionAPI.listRunning(settings)).filter((s) => s.path.startsWith('recur/replay-') && s.path.includes(id));
  expect(left).toEqual([]);
}
