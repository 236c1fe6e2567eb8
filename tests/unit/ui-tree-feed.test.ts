import type { LogReply, TreeLine } from '../../services/daemon/api-types';
import { causalOrder } from '../../log/causal-order';
import type { StoredEvent } from '../../schemas';
import { BATCH_MS, LOAD_SHOW_MS, TreeFeed, type FeedDeps, type FeedState, type SocketHandlers } from '../../ui/state/tree-feed';
import { skewedTree } from '../helpers/replay-tree-fixture';

const ids = (events: readonly StoredEvent[] | undefined) => (events ?? []).map((e) => e.eventId);

/** A daemon stand-in: fixed replies per path (a JSON-lines reply as its lines, each line `LOAD_SHOW_MS` after the last), and sockets the test drives. */
function fakeDaemon(replies: Record<string, unknown[]>) {
  const sockets: Array<{ after: Record<string, number>; on: SocketHandlers; closed: boolean }> = [];
  const paths: string[] = [];
  let signedOut = false;
  const next = (path: string): unknown => {
    paths.push(path);
    const key = Object.keys(replies).find((p) => path.startsWith(p));
    const queue = key ? replies[key] : [];
    if (queue.length === 0) throw new Error(`no reply for ${path}`);
    return queue.length > 1 ? queue.shift() : queue[0];
  };
  const deps: FeedDeps = {
    getJson: async <T>(path: string): Promise<T> => next(path) as T,
    getLines: async (path, onLine, signal) => {
      for (const line of next(path) as TreeLine[]) {
        if (signal.aborted) throw new Error('aborted');
        onLine(line);
        jest.advanceTimersByTime(LOAD_SHOW_MS);
      }
    },
    openEvents: (_root, after, on) => {
      const socket = { after: JSON.parse(decodeURIComponent(after)) as Record<string, number>, on, closed: false };
      sockets.push(socket);
      return { close: () => { socket.closed = true; } };
    },
    isSignedOut: () => signedOut,
    live: true,
  };
  return { deps, sockets, paths, signOut: () => { signedOut = true; } };
}

/** The tree route's lines for `events`, `chunk` events to a line. */
const reply = (events: StoredEvent[], chunk = 1000): TreeLine[] => {
  const cursor: Record<string, number> = {};
  const counts: Record<string, number> = {};
  for (const e of events) {
    cursor[e.sessionId] = e.seq;
    counts[e.sessionId] = (counts[e.sessionId] ?? 0) + 1;
  }
  const ordered = causalOrder(events);
  const chunks: TreeLine[] = [];
  for (let i = 0; i < ordered.length; i += chunk) chunks.push({ kind: 'events', events: ordered.slice(i, i + chunk) });
  return [{ kind: 'head', counts, harness: [], problems: [], cursor }, ...chunks, { kind: 'end' }];
};
const send = (on: SocketHandlers, events: StoredEvent[]) => { for (const e of events) on.message(JSON.stringify(e)); };

describe('following a session tree live (ui/state/tree-feed.ts)', () => {
  const t = skewedTree();
  const all = [...t.root.records, ...t.a.records, ...t.b.records];
  const loaded = [...t.root.records.slice(0, 3), ...t.a.records.slice(0, 1)];
  const verdict = { treeId: 'r', ok: true };
  let state: FeedState;
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function startFeed(replies: Record<string, unknown[]>) {
    const daemon = fakeDaemon({ '/v1/sessions/r/tree': [reply(loaded)], '/v1/sessions/r/verify': [verdict], '/v1/ui/info': [{}], ...replies });
    const feed = new TreeFeed('r', daemon.deps, (s) => { state = s; });
    return { feed, ...daemon };
  }

  test('loads the tree, follows from its cursor and folds frames in batches, in causal order', async () => {
    const { feed, sockets } = startFeed({});
    await feed.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(state).toMatchObject({ live: true, verdict, error: null });
    expect(sockets[0].after).toEqual({ r: 2, 'r/a': 0 });
    send(sockets[0].on, all.filter((e) => !loaded.includes(e)));
    expect(ids(state.model?.events)).toEqual(ids(causalOrder(loaded)));
    await jest.advanceTimersByTimeAsync(BATCH_MS);
    expect(ids(state.model?.events)).toEqual(ids(causalOrder(all)));
  });

  test('shows the first lines of the tree while the rest arrives, and follows live only once all are in', async () => {
    const states: Array<FeedState & { sockets: number }> = [];
    const daemon = fakeDaemon({ '/v1/sessions/r/tree': [reply(all, 2)], '/v1/sessions/r/verify': [verdict] });
    const feed = new TreeFeed('r', daemon.deps, (s) => states.push({ ...s, sockets: daemon.sockets.length }));
    await feed.start();
    const loading = states.filter((s) => s.model?.expected);
    expect(loading.length).toBeGreaterThanOrEqual(2);
    expect(loading[0]).toMatchObject({ live: false, sockets: 0, model: { expected: { r: t.root.records.length, 'r/a': t.a.records.length, 'r/b': t.b.records.length } } });
    expect(ids(loading[0].model!.events)).toEqual(ids(causalOrder(all)).slice(0, 2));
    expect(loading.every((s, i) => i === 0 || s.model!.events.length > loading[i - 1].model!.events.length)).toBe(true);
    expect(states.at(-1)).toMatchObject({ live: true, sockets: 1, model: { expected: null } });
    expect(ids(states.at(-1)!.model!.events)).toEqual(ids(causalOrder(all)));
    expect(daemon.sockets[0].after).toEqual({ r: t.root.records.length - 1, 'r/a': t.a.records.length - 1, 'r/b': t.b.records.length - 1 });
  });

  test('a tree reply cut short (no end line) is an error, and nothing follows it', async () => {
    const { feed, sockets, paths } = startFeed({ '/v1/sessions/r/tree': [reply(loaded).slice(0, -1)] });
    await feed.start();
    expect(state.error).toMatch(/cut short/);
    expect(state.live).toBe(false);
    expect(sockets).toHaveLength(0);
    expect(paths.filter((p) => p.endsWith('/verify'))).toHaveLength(0);
  });

  test('a dropped socket reopens after a backoff from the cursor it reached, and repeats are dropped', async () => {
    const { feed, sockets, paths } = startFeed({});
    await feed.start();
    send(sockets[0].on, t.b.records.slice(0, 2));
    sockets[0].on.closed(1006, '');
    expect(ids(state.model?.events)).toContain('r/b/1');
    await jest.advanceTimersByTimeAsync(499);
    expect(sockets).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(paths).toContain('/v1/ui/info');
    expect(sockets).toHaveLength(2);
    expect(sockets[1].after).toEqual({ r: 2, 'r/a': 0, 'r/b': 1 });
    send(sockets[1].on, [t.b.records[1], t.b.records[2]]);
    await jest.advanceTimersByTimeAsync(BATCH_MS);
    expect(ids(state.model?.events).filter((id) => id.startsWith('r/b/'))).toEqual(['r/b/0', 'r/b/1', 'r/b/2']);
    expect(state.live).toBe(true);
  });

  test('\'session closed\' ends live mode, pages in the log\'s tail and verifies again; it never reconnects', async () => {
    const tail: LogReply[] = [
      { events: t.root.records.slice(3), problems: [], nextCursor: {}, more: true },
      { events: [...t.a.records.slice(1), ...t.b.records], problems: [], nextCursor: {}, more: false },
    ];
    const { feed, sockets, paths } = startFeed({ '/v1/sessions/r/log': tail });
    await feed.start();
    sockets[0].on.closed(1000, 'session closed');
    await jest.advanceTimersByTimeAsync(60_000);
    expect(state.live).toBe(false);
    expect(ids(state.model?.events)).toEqual(ids(causalOrder(all)));
    expect(paths.filter((p) => p.endsWith('/verify'))).toHaveLength(2);
    expect(paths.find((p) => p.includes('/log?'))).toBe(`/v1/sessions/r/log?limit=5000&after=${encodeURIComponent('{"r":2,"r/a":0}')}`);
    expect(sockets).toHaveLength(1);
  });

  test('a socket lost to a sign-out, or closed by leaving the page, is not reopened', async () => {
    const first = startFeed({});
    await first.feed.start();
    first.signOut();
    first.sockets[0].on.closed(1006, '');
    await jest.advanceTimersByTimeAsync(60_000);
    expect(first.sockets).toHaveLength(1);

    const second = startFeed({});
    await second.feed.start();
    second.feed.dispose();
    expect(second.sockets[0].closed).toBe(true);
    second.sockets[0].on.closed(1000, '');
    await jest.advanceTimersByTimeAsync(60_000);
    expect(second.sockets).toHaveLength(1);
  });
});
