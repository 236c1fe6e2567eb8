import type { StoredEvent } from '../../schemas';
import type { LogReply, TreeLog } from '../../services/daemon/api-types';
import { MAX_LOG_PAGE, pageLog } from '../../services/daemon/page-log';
import { runCli } from '../../services/cli/cli';
import { fakeSessions, startTestServer, type TestServer } from '../helpers/daemon-test-server';
import { sampleSession } from './event-samples';

const events = (id: string, n: number) =>
  sampleSession(id, Array.from({ length: n }, (_, i) => ({ type: 'SessionCompleted' as const, answer: String(i) }))).records as StoredEvent[];

/** A tree as the log read returns it: root r1 (5 events), then child r1/a (3). */
const tree = (): TreeLog => ({ events: [...events('r1', 5), ...events('r1/a', 3)], problems: [] });
const ids = (page: LogReply) => page.events.map((e) => e.eventId);

describe('log pages', () => {
  it('walks the tree page by page, each event once, ending with more: false', () => {
    const seen: string[] = [];
    let page = pageLog(tree(), {}, 3);
    for (;;) {
      seen.push(...ids(page));
      if (!page.more) break;
      page = pageLog(tree(), page.nextCursor, 3);
    }
    expect(seen).toEqual(tree().events.map((e) => e.eventId));
    expect(page.nextCursor).toEqual({ r1: 4, 'r1/a': 2 });
  });

  it('a session that logs more after the reader paged past it still shows up on the next page', () => {
    const first = pageLog(tree(), {}, 6); // r1/0-4 and r1/a/0
    const grown: TreeLog = { events: [...events('r1', 7), ...events('r1/a', 3)], problems: [] };
    expect(ids(pageLog(grown, first.nextCursor, 10))).toEqual(['r1/5', 'r1/6', 'r1/a/1', 'r1/a/2']);
  });

  describe('GET /v1/sessions/:id/log', () => {
    let srv: TestServer;
    beforeEach(async () => {
      srv = await startTestServer({ sessions: fakeSessions(['r1']).service, readLog: async () => tree() });
    });
    afterEach(() => srv.close());
    const get = async (query: string) => {
      const res = await fetch(`${srv.url}/v1/sessions/r1/log${query}`, { headers: { authorization: `Bearer ${srv.token}` } });
      return { status: res.status, body: (await res.json()) as LogReply & { error?: { message: string; field?: string } } };
    };

    it('pages with ?after=<cursor>&limit=<n> and hands back the cursor for the next page', async () => {
      const first = await get('?limit=4');
      expect(first.status).toBe(200);
      expect(ids(first.body)).toEqual(['r1/0', 'r1/1', 'r1/2', 'r1/3']);
      expect(first.body).toMatchObject({ more: true, nextCursor: { r1: 3 }, problems: [] });
      const second = await get(`?limit=4&after=${encodeURIComponent(JSON.stringify(first.body.nextCursor))}`);
      expect(ids(second.body)).toEqual(['r1/4', 'r1/a/0', 'r1/a/1', 'r1/a/2']);
      expect(second.body.more).toBe(false);
      expect(ids((await get('')).body)).toHaveLength(8); // default page holds the whole small tree
    });

    it.each([
      [`?limit=${MAX_LOG_PAGE + 1}`, `limit must be an integer 1..${MAX_LOG_PAGE}`],
      ['?limit=0', `limit must be an integer 1..${MAX_LOG_PAGE}`],
      ['?limit=ten', `limit must be an integer 1..${MAX_LOG_PAGE}`],
      ['?after=5', 'after must be a JSON object'],
      [`?after=${encodeURIComponent('{"r1": -7}')}`, 'after["r1"] must be an integer seq'],
    ])('answers 400 to %s', async (query, message) => {
      const res = await get(query);
      expect(res.status).toBe(400);
      expect(res.body.error?.message).toContain(message);
    });
  });

  it('recur logs follows the pages to the end', async () => {
    const big: TreeLog = { events: events('r1', 2500), problems: [] };
    const srv = await startTestServer({ sessions: fakeSessions(['r1']).service, readLog: async () => big });
    const env = { ...process.env };
    process.env.RECUR_HOME = srv.config.home;
    process.env.RECUR_DAEMON_PORT = String(srv.config.ports.daemon);
    try {
      const out: string[] = [];
      expect(await runCli(['logs', 'r1', '--json'], { out: (l: string) => out.push(l), err: () => undefined })).toBe(0);
      expect(out.map((l) => (JSON.parse(l) as StoredEvent).seq)).toEqual(big.events.map((e) => e.seq));
    } finally {
      process.env = env;
      await srv.close();
    }
  });
});
