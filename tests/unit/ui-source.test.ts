import type { EmbeddedBundle, TreeLine } from '../../services/daemon/api-types';
import type { BundleVerdict } from '../../services/projector/bundle/verify-bundle';
import { embeddedSource } from '../../ui/model/embedded-source';

const bundle = (): EmbeddedBundle => ({
  info: { temporalUi: null, namespace: 'default', traceUrl: null, bundle: { file: 't.tar.gz', treeId: 'r/a', exportedAt: 'then', keys: { source: 'bundle', fingerprints: [] }, verifiedAt: 'now' } },
  catalog: { roots: [], complete: true, undecodable: 0 },
  rootId: 'r',
  tree: [{ kind: 'head', counts: {}, harness: [], problems: [], cursor: {} }, { kind: 'end' }] as TreeLine[],
  verdict: { ok: true } as BundleVerdict,
  blobs: { ['a'.repeat(64)]: Buffer.from('hello world').toString('base64') },
});

describe("an HTML export's embedded source", () => {
  it("answers the viewer's reads by the daemon's paths, from the page alone, and never follows a tree", async () => {
    const data = bundle();
    const s = embeddedSource(data);
    expect([s.live, s.signsIn, s.isSignedOut()]).toEqual([false, false, false]);
    expect(await s.getJson('/v1/catalog')).toBe(data.catalog);
    expect(await s.getJson('/v1/ui/info')).toBe(data.info);
    expect(await s.getJson('/v1/sessions?limit=500')).toEqual({ sessions: [] });
    expect(await s.getJson('/v1/sessions/r/verify')).toBe(data.verdict);
    const lines: unknown[] = [];
    await s.getLines('/v1/sessions/r/tree', (l) => lines.push(l), new AbortController().signal);
    expect(lines).toEqual(data.tree);
  });

  it('cuts a blob at max and gives its whole size; what the file lacks is an error naming the tree it holds', async () => {
    const s = embeddedSource(bundle());
    const cut = await s.blob('a'.repeat(64), 5);
    expect([Buffer.from(cut.bytes).toString(), cut.size]).toEqual(['hello', 11]);
    expect(Buffer.from((await s.blob('a'.repeat(64), null)).bytes).toString()).toBe('hello world');
    await expect(s.blob('b'.repeat(64), null)).rejects.toThrow('is not in this file (it holds the tree of r)');
    await expect(s.getJson('/v1/sessions/x/verify')).rejects.toThrow('/v1/sessions/x/verify is not in this file');
    await expect(s.getLines('/v1/sessions/x/tree', () => undefined, new AbortController().signal)).rejects.toThrow('not in this file');
  });
});
