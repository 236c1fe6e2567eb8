import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBlobStore } from '../../activities/blob-store';
import { MANIFEST_FORMAT } from '../../activities/snapshot/manifest';
import type { RecurEventInput } from '../../schemas';
import type { CatalogReply, EmbeddedBundle, TreeHead } from '../../services/daemon/api-types';
import { bundleRoutes } from '../../services/daemon/bundle-routes';
import type { ApiRequest } from '../../services/daemon/route-types';
import { parseTreeBody } from '../../services/daemon/tree-lines';
import { writeBundle, type Bundle } from '../../services/projector/bundle/bundle-format';
import { bundleHtml } from '../../services/projector/bundle/bundle-html';
import { bundleKeys, bundleViewerDeps, keyFingerprint } from '../../services/projector/bundle/bundle-view';
import { collectBundle } from '../../services/projector/bundle/collect-bundle';
import { cliInProcess } from '../helpers/cli-in-process';
import { FIXTURE_KEY, chain, ev, records } from '../helpers/replay-tree-fixture';
import { testLogKey } from '../helpers/test-log-key';

const dir = () => mkdtempSync(join(tmpdir(), 'recur-bundle-view-'));
const ANSWER = 'done </script><script>alert(1)</script>';

/** A root with a cell output in a blob and a snapshot (a manifest naming one pickle), a child, and another tree beside it. */
async function bundle(): Promise<{ bundle: Bundle; output: string; manifest: string; pickle: string }> {
  const store = createLocalBlobStore(dir());
  const output = await store.put(Buffer.from('y'.repeat(20_000)));
  const pickle = await store.put(Buffer.from('pickled'));
  const manifest = await store.put(Buffer.from(JSON.stringify({
    format: MANIFEST_FORMAT, coversSeq: 3, python: '3.13', picklers: {}, limits: { maxVariableBytes: null, maxTotalBytes: null },
    variables: [{ name: 'big', sha256: pickle.sha256, size: pickle.size, pickler: 'pickle' }], modules: [], unsaved: [], oversize: [], bytes: 7,
  })));
  const executed = { ...(ev.executed('r/2', 'print(big)', 'yyyy…') as object), outputsBlob: output } as RecurEventInput;
  const snapshot: RecurEventInput = { type: 'KernelSnapshotted', manifest, coversSeq: 3, variables: 1, bytes: 7, unsaved: [], oversize: [], durationMs: 5 };
  const root = chain('r', [[100, ev.started('root', 0)], [110, ev.spawned('r/kid')], [120, ev.request('print(big)')], [130, executed], [140, snapshot], [150, ev.childDone('r/kid')], [400, ev.completed(ANSWER)]]);
  const kid = chain('r/kid', [[111, ev.started('kid', 1, 'r')], [140, ev.completed('kid done')]]);
  const other = chain('rx', [[100, ev.started('other', 0)]]);
  const recs = [...records('r', root.values), ...records('rx', other.values, 7), ...records('r/kid', kid.values, 20)];
  const b = await collectBundle({ treeId: 'r', topic: 'recur.events.v1', records: recs, blobs: store, publicKey: () => FIXTURE_KEY.publicPem, now: new Date(0) });
  return { bundle: b, output: output.sha256, manifest: manifest.sha256, pickle: pickle.sha256 };
}

const get = (path: string): ApiRequest => ({ method: 'GET', segments: path.split('?')[0].split('/').slice(1), query: new URLSearchParams(path.split('?')[1] ?? ''), body: undefined });
const operatorKey = () => [...FIXTURE_KEY.keyring.values()];

describe('the viewer over an audit bundle', () => {
  it("answers the viewer's reads from the bundle: the tree, its catalog entry, an empty Temporal list, its blobs, the verdict with the keys given", async () => {
    const { bundle: b, output } = await bundle();
    const handle = bundleRoutes(bundleViewerDeps(b, bundleKeys('t.tar.gz', b, operatorKey())));
    expect((await handle(get('/v1/sessions?limit=500'))).body).toEqual({ sessions: [] });
    const catalog = (await handle(get('/v1/catalog'))).body as CatalogReply;
    expect(catalog).toMatchObject({ complete: true, undecodable: 0, roots: [{ sessionId: 'r', sessions: 2, events: 9, ended: 'completed' }] });
    const tree = parseTreeBody([...(await handle(get('/v1/sessions/r/tree'))).lines!].join('\n'));
    expect(tree.events.map((e) => e.sessionId)).toEqual(expect.arrayContaining(['r', 'r/kid']));
    expect(tree.events).toHaveLength(9);
    const blob = await handle(get(`/v1/blobs/${output}?max=10`));
    expect([blob.binary!.bytes.length, blob.binary!.headers['x-recur-blob-size']]).toEqual([10, '20000']);
    expect((await handle(get('/v1/sessions/r/verify'))).body).toMatchObject({ ok: true, keys: { source: 'given', keyIds: [FIXTURE_KEY.keyId] } });
    await expect(handle(get('/v1/sessions/rx/tree'))).rejects.toMatchObject({ status: 404, message: expect.stringContaining('not in this bundle') });
    await expect(handle({ ...get('/v1/sessions'), method: 'POST' })).rejects.toMatchObject({ status: 404 });
  });

  it("fails verification under another key, names the bundle's own keys when none is given, and refuses a blob that no longer matches its name", async () => {
    const { bundle: b, output } = await bundle();
    const stranger = testLogKey();
    const wrong = bundleViewerDeps(b, bundleKeys('t.tar.gz', b, [...stranger.keyring.values()]));
    const v = await wrong.verifyTree('r');
    expect(v.ok).toBe(false);
    expect(v.faults[0].fault).toBe('unknown-key');
    const own = bundleKeys('t.tar.gz', b, []);
    expect(own.source).toBe('bundle');
    expect(own.keys.map((k) => keyFingerprint(k).keyId)).toEqual([FIXTURE_KEY.keyId]);
    const tampered: Bundle = { ...b, blobs: new Map([...b.blobs].map(([k, bytes]) => [k, k === output ? Buffer.from('z'.repeat(20_000)) : bytes])) };
    const deps = bundleViewerDeps(tampered, own);
    await expect(deps.blobs.get(output)).rejects.toMatchObject({ problem: 'corrupt' });
    expect((await deps.verifyTree('r')).faults.map((f) => f.fault)).toEqual(['blob-corrupt']);
  });

  it('a key fingerprint is the SHA-256 of the raw key, the key id its first 32 digits', () => {
    const [key] = operatorKey();
    const f = keyFingerprint(key);
    expect(f.sha256).toBe(createHash('sha256').update(key.export({ format: 'der', type: 'spki' }).subarray(-32)).digest('hex'));
    expect(f.sha256.slice(0, 32)).toBe(f.keyId);
  });
});

describe('the HTML export', () => {
  const ui = () => {
    const d = dir();
    writeFileSync(join(d, 'app.js'), 'console.log("app")\n//# sourceMappingURL=app.js.map\n');
    writeFileSync(join(d, 'app.css'), 'body { color: red }\n');
    return d;
  };
  const embedded = (html: string): EmbeddedBundle => JSON.parse(/<script type="application\/json" id="recur-bundle">(.*?)<\/script>/s.exec(html)![1]);

  it('inlines the script and style under a CSP that allows exactly them and no connection, and embeds the tree, verdict and the blobs the viewer reads', async () => {
    const { bundle: b, output, manifest, pickle } = await bundle();
    const page = await bundleHtml({ file: 't.tar.gz', bundle: b, keys: bundleKeys('t.tar.gz', b, operatorKey()), uiDir: ui(), now: new Date(5) });
    const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page.html)![1];
    expect(csp).toBe(`default-src 'none'; script-src ${hash('console.log("app")\n')}; style-src ${hash('body { color: red }\n')}; img-src data:; base-uri 'none'; form-action 'none'`);
    expect(page.html).toContain('<script type="module">console.log("app")\n</script>');
    expect(page.html).not.toContain('sourceMappingURL');
    // The answer's markup is data: escaped, it ends no element of the page.
    expect(page.html.match(/<\/script>/g)).toHaveLength(2);
    const data = embedded(page.html);
    expect(JSON.stringify(data)).toContain(ANSWER);
    expect(data.rootId).toBe('r');
    expect((data.tree[0] as TreeHead).counts).toEqual({ r: 7, 'r/kid': 2 });
    expect(data.verdict).toMatchObject({ ok: true, keys: { source: 'given' } });
    expect(data.info.bundle).toMatchObject({ file: 't.tar.gz', treeId: 'r', verifiedAt: new Date(5).toISOString(), keys: { source: 'given', fingerprints: [{ keyId: FIXTURE_KEY.keyId }] } });
    expect(Object.keys(data.blobs).sort()).toEqual([output, manifest].sort());
    expect(data.blobs[pickle]).toBeUndefined();
    expect(Buffer.from(data.blobs[output], 'base64').toString()).toBe('y'.repeat(20_000));
    expect([page.blobs, page.ok]).toEqual([2, true]);
  });

  it('refuses a build whose script could end its own element', async () => {
    const { bundle: b } = await bundle();
    const d = ui();
    writeFileSync(join(d, 'app.js'), 'x = "</SCRIPT>"');
    await expect(bundleHtml({ file: 't', bundle: b, keys: bundleKeys('t', b, []), uiDir: d, now: new Date() })).rejects.toThrow('cannot be inlined');
  });
});

describe('recur view and recur export --html with bad input', () => {
  it('one clear error, no stack trace: a file that is not a bundle, a missing file, a bad --port, a key file that is not a key', async () => {
    const d = dir();
    const notBundle = join(d, 'notes.txt');
    writeFileSync(notBundle, 'hello');
    const { bundle: b } = await bundle();
    const good = join(d, 't.tar.gz');
    await writeBundle(good, b);
    const home = { RECUR_HOME: join(d, 'no-home') };
    await expect(cliInProcess(['view', notBundle, '--no-open'], home)).rejects.toThrow(`${notBundle} is not a Recur audit bundle`);
    await expect(cliInProcess(['view', join(d, 'absent.tar.gz'), '--no-open'], home)).rejects.toThrow('is not a Recur audit bundle');
    await expect(cliInProcess(['export', '--bundle', notBundle, '--html', join(d, 'x.html')], home)).rejects.toThrow('is not a Recur audit bundle');
    await expect(cliInProcess(['view', good, '--pubkey', notBundle], home)).rejects.toThrow('is not an Ed25519 public key');
    expect(await cliInProcess(['view', good, '--port', '70000'], home)).toMatchObject({ code: 2, message: expect.stringContaining('--port takes 0..65535') });
    expect(await cliInProcess(['export', '--bundle', good], home)).toMatchObject({ code: 2 });
    await expect(cliInProcess(['ui', '--bundle', notBundle, '--no-open'], home)).rejects.toThrow(`${notBundle} is not a Recur audit bundle`);
  });

  it('recur view --help points at the viewer page', async () => {
    const help = await cliInProcess(['view', '--help']);
    expect(help.out.join('\n')).toMatch(/^usage: recur view BUNDLE .*\n[\s\S]*More: \S+docs\/viewer\.md$/);
  });
});
