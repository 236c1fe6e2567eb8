import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBlobStore, sha256Hex } from '../../activities/blob-store';
import { ZERO_HASH, encodeEventBatch, type RecurEventInput } from '../../schemas';
import type { CatalogReply, TreeHead } from '../../services/daemon/api-types';
import { parseTreeBody } from '../../services/daemon/tree-lines';
import { EventCollector } from '../../services/projector';
import { inOrderCollector } from '../../log/in-order-collector';
import { verifyTree } from '../../log/verify-tree';
import { startTestServer, type TestServer } from '../helpers/daemon-test-server';
import { testLogKey } from '../helpers/test-log-key';

const T = 1_700_000_000_000;
const key = testLogKey();
/** Session `id`'s events from seq 0, one second apart from T, sealed with the test key. */
const batch = (id: string, events: RecurEventInput[]) => encodeEventBatch({
  sessionId: id, rootId: id.split('/')[0], parentId: id.includes('/') ? id.slice(0, id.lastIndexOf('/')) : null, fromSeq: 0, prevHash: ZERO_HASH,
  events: events.map((event, i) => ({ ts: T + 1000 * i, event })),
}, key.signer);
const started = (name: string): RecurEventInput => ({ type: 'SessionStarted', task: 't', name, model: 'scripted', depth: 0, maxDepth: 2, maxTurns: 5, cellTimeoutSeconds: 60 });
const done: RecurEventInput = { type: 'SessionCompleted', answer: 'ok' };

const ROOT = batch('r1', [started('root'), { type: 'SubagentSpawned', childId: 'r1/a', name: 'a', task: 'x', taskBlob: null, model: 'scripted', spec: null, requestId: null }, done]);
// The child's events carry earlier times than the spawn they follow: only the causal order puts them after it.
const CHILD = batch('r1/a', [started('a'), done]);
const HARNESS = batch('harness:r1', [done]);
const OTHER = batch('r2', [started('root')]);

/** Kafka-shaped records of the batches, in the order given, on one partition. */
function records(...batches: Array<ReturnType<typeof batch> | { key: string | null; value: Buffer }>) {
  const flat = batches.flatMap((b) => ('values' in b ? b.values.map((value, i) => ({ key: b.records[i].sessionId, value })) : [b]));
  return flat.map((r, i) => ({ partition: 0, offset: String(i), key: r.key === null ? null : Buffer.from(r.key), value: r.value }));
}

describe('the viewer read routes (services/daemon/viewer-routes.ts)', () => {
  let srv: TestServer;
  const blobRoot = mkdtempSync(join(tmpdir(), 'recur-viewer-blobs-'));
  const blobs = createLocalBlobStore(blobRoot);
  const log = records(ROOT, CHILD, HARNESS, OTHER, { key: 'r1', value: Buffer.from('not avro') }, { key: null, value: Buffer.from('no key') });
  const asked: string[] = [];
  const catalog: CatalogReply = { roots: [], complete: false, undecodable: 1 };

  beforeAll(async () => {
    srv = await startTestServer({
      async readTree(id) {
        asked.push(id);
        const tree = new EventCollector({ sessionId: id, descendants: true });
        const harness = new EventCollector({ sessionId: `harness:${id.split('/')[0]}`, descendants: false });
        for (const r of log) [tree, harness].forEach((c) => c.accept(r));
        return { tree: tree.result(), harness: harness.result() };
      },
      async verifyTree(id) {
        const c = inOrderCollector(id);
        log.forEach((r) => c.accept(r));
        return verifyTree(id, c.result(), key.keyring);
      },
      blobs,
      catalog: async () => catalog,
    });
  });
  afterAll(() => srv.close());

  const get = (path: string) => fetch(`${srv.url}${path}`, { headers: { authorization: `Bearer ${srv.token}` } });
  const json = async (path: string) => {
    const res = await get(path);
    return { status: res.status, body: (await res.json()) as any };
  };

  const tree = async (path: string) => {
    const res = await get(path);
    const text = await res.text();
    return { res, text, reply: parseTreeBody(text), head: JSON.parse(text.split('\n')[0]) as TreeHead };
  };

  it('/tree: JSON lines of the tree in causal order, its harness log, problems once, sizes and the cursor of the last seq per session', async () => {
    const { res, reply, head, text } = await tree('/v1/sessions/r1/tree');
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/x-ndjson']);
    expect(text.split('\n').map((l) => l && JSON.parse(l).kind)).toEqual(['head', 'events', 'end', '']);
    expect(head.counts).toEqual({ r1: 3, 'r1/a': 2 });
    expect(reply.events.map((e) => e.eventId)).toEqual(['r1/0', 'r1/1', 'r1/a/0', 'r1/a/1', 'r1/2']);
    expect(reply.events[0]).toEqual(JSON.parse(JSON.stringify(ROOT.records[0])));
    expect(reply.harness.map((e) => e.eventId)).toEqual(['harness:r1/0']);
    expect(reply.cursor).toEqual({ r1: 2, 'r1/a': 1 });
    expect(reply.problems.map((p) => `${p.problem} ${p.key}`)).toEqual(['undecodable r1', 'undecodable null']);
  });

  it('/tree of a child is its subtree (with the root harness log); a bad id is a 400 before any read', async () => {
    const { reply: body } = await tree(`/v1/sessions/${encodeURIComponent('r1/a')}/tree`);
    expect(body.events.map((e) => e.eventId)).toEqual(['r1/a/0', 'r1/a/1']);
    expect(body.harness).toHaveLength(1);
    expect(body.cursor).toEqual({ 'r1/a': 1 });
    asked.length = 0;
    expect((await json('/v1/sessions/bad%20id/tree')).status).toBe(400);
    expect(asked).toEqual([]);
  });

  it('/tree whose writing fails after its head: the connection is cut, so the body lacks its end line and the client cannot take it for whole', async () => {
    const empty = { events: [], sessions: new Map(), undecodable: [], conflicts: [], duplicates: 0 };
    const broken = await startTestServer({
      readTree: async () => ({ tree: { ...empty, get events(): never { throw new Error('the tree went away'); } }, harness: empty }),
    });
    try {
      const res = await fetch(`${broken.url}/v1/sessions/r1/tree`, { headers: { authorization: `Bearer ${broken.token}` } });
      expect(res.status).toBe(200);
      const body = await res.text().then((text) => ({ text }), (err: Error) => ({ err }));
      if ('text' in body) expect(() => parseTreeBody(body.text)).toThrow(/cut short/);
      else expect(body.err.message).toMatch(/terminated/);
    } finally {
      await broken.close();
    }
  });

  it("/verify: the audit's verdict as is, naming the undecodable record keyed in the tree", async () => {
    const { status, body } = await json('/v1/sessions/r1/verify');
    expect(status).toBe(200);
    const c = inOrderCollector('r1');
    log.forEach((r) => c.accept(r));
    expect(body).toEqual(JSON.parse(JSON.stringify(verifyTree('r1', c.result(), key.keyring))));
    expect(body).toMatchObject({ ok: false, events: 5, signedBy: { [key.keyId]: 5 }, faults: [{ fault: 'undecodable' }] });
  });

  it('/blobs: the bytes with their full size, the first ?max= of them, 400 for a bad address or max, 404 missing, 502 corrupt', async () => {
    const ref = await blobs.put(Buffer.from('hello, blob'));
    const whole = await get(`/v1/blobs/${ref.sha256}`);
    expect([whole.status, whole.headers.get('content-type'), whole.headers.get('x-recur-blob-size')]).toEqual([200, 'application/octet-stream', '11']);
    expect(await whole.text()).toBe('hello, blob');
    const cut = await get(`/v1/blobs/${ref.sha256}?max=5`);
    expect([cut.status, cut.headers.get('x-recur-blob-size'), await cut.text()]).toEqual([200, '11', 'hello']);
    expect(await (await get(`/v1/blobs/${ref.sha256}?max=0`)).text()).toBe('');

    expect(await json('/v1/blobs/not-a-hash')).toMatchObject({ status: 400, body: { error: { name: 'BlobStoreError', message: 'blob not-a-hash: invalid-address' } } });
    expect(await json(`/v1/blobs/${ref.sha256}?max=-1`)).toMatchObject({ status: 400, body: { error: { field: 'max' } } });
    expect(await json(`/v1/blobs/${ref.sha256}?max=x`)).toMatchObject({ status: 400 });
    const missing = sha256Hex(Buffer.from('never stored'));
    expect(await json(`/v1/blobs/${missing}`)).toMatchObject({ status: 404, body: { error: { message: `blob ${missing}: missing` } } });

    const corrupt = (await blobs.put(Buffer.from('to be damaged'))).sha256;
    writeFileSync(join(blobRoot, 'sha256', corrupt.slice(0, 2), corrupt), 'damaged');
    expect(await json(`/v1/blobs/${corrupt}`)).toMatchObject({ status: 502, body: { error: { name: 'BlobStoreError', message: `blob ${corrupt}: corrupt` } } });
  });

  it('/catalog: the read model reply as is; only GET', async () => {
    expect(await json('/v1/catalog')).toEqual({ status: 200, body: catalog });
    const posted = await fetch(`${srv.url}/v1/catalog`, { method: 'POST', headers: { authorization: `Bearer ${srv.token}` } });
    expect(posted.status).toBe(404);
  });
});
