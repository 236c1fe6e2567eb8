import type { RecurEventInput } from '../../schemas';
import type { TreeLog } from '../../services/daemon/api-types';
import { chain, ev } from '../helpers/replay-tree-fixture';
import { fakeSessions, startTestServer, type TestServer } from '../helpers/daemon-test-server';

const cell = (code: string): RecurEventInput[] => [ev.request(code), ev.executed('', code, '')];

/** r: 0 SessionStarted · 1 ModelCalled · 2-3 a cell · 4 ModelCalled · 5-6 a cell · 7 SessionCompleted; a kid's events too. */
function treeLog(): TreeLog {
  const items: RecurEventInput[] = [ev.started('root', 0), ev.model(0), ...cell('x = 1'), ev.model(1), ...cell('x = 2'), ev.completed()];
  const root = chain('r', items.map((e, i) => [i, e.type === 'CellExecuted' ? { ...e, requestId: `r/${i - 1}` } : e])).records;
  const kid = chain('r/kid', [[0, ev.started('kid', 1, 'r')]]).records;
  return { events: [...root, ...kid], problems: [] };
}

describe('POST /v1/sessions/:id/fork', () => {
  let srv: TestServer;
  let fake: ReturnType<typeof fakeSessions>;
  let log: TreeLog;

  beforeEach(async () => {
    fake = fakeSessions([]);
    log = treeLog();
    srv = await startTestServer({ sessions: fake.service, readLog: async (id) => (id === 'r' || id === 'r/kid' ? log : { events: [], problems: [] }) });
  });
  afterEach(() => srv.close());

  const fork = async (id: string, body: unknown) => {
    const res = await fetch(`${srv.url}/v1/sessions/${encodeURIComponent(id)}/fork`, {
      method: 'POST', headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { error?: { name: string; message: string; field?: string; allowed?: string } } & Record<string, unknown> };
  };

  it("starts a new root whose input names the origin, the seq and the instruction, with the origin's model and logged limits", async () => {
    const { status, body } = await fork('r', { at: 3, instruction: 'try y = 3 instead' });
    expect(status).toBe(201);
    expect(body).toEqual({ sessionId: expect.stringMatching(/^fork-[a-z0-9]+$/), forkedFrom: { sessionId: 'r', seq: 3, hash: log.events[3].hash }, maxTurns: 10 });
    const [input] = fake.calls.started;
    expect(input).toMatchObject({
      sessionId: body.sessionId, rootId: body.sessionId, parentId: null, name: 'root', task: 'task of root', model: 'scripted', depth: 0,
      limits: { maxTurns: 10, cellTimeoutSeconds: 30, maxDepth: 3 },
      fork: { originId: 'r', atSeq: 3, instruction: { messageId: expect.stringMatching(/^user#[0-9a-f]{16}$/), from: 'user', text: 'try y = 3 instead' } },
    });
    // Nothing of the log rides in the workflow's input: the fork's workflow copies it.
    expect(JSON.stringify(input)).not.toContain('x = 1');
  });

  it("carries the origin's tree budget as logged up to the fork point", async () => {
    const budget: RecurEventInput = { type: 'BudgetSet', scope: 'tree', tokens: 5000, costUsd: 2, seconds: 600, turns: 40, askedTokens: null, askedCostUsd: null, note: 'as run asked' };
    log.events = chain('r', [[0, ev.started('root', 0)], [1, budget], [2, ev.model(0, 'thinking')]]).records;
    expect((await fork('r', { at: 2 })).status).toBe(201);
    expect(fake.calls.started[0].limits).toMatchObject({ maxTokens: 5000, maxCostUsd: 2, maxSeconds: 600, maxTreeTurns: 40 });
    expect((await fork('r', { at: 0 })).status).toBe(201);
    expect(fake.calls.started[1].limits).toMatchObject({ maxTokens: null, maxSeconds: null });
    expect(fake.calls.started[1].limits.maxCostUsd).toBeUndefined();
  });

  it('answers 404 for a session the log does not hold', async () => {
    const { status, body } = await fork('nosuch', { at: 0 });
    expect(status).toBe(404);
    expect(body.error?.message).toBe('no session nosuch in the log');
    expect(fake.calls.started).toEqual([]);
  });

  it('answers 400 with the valid range for a seq out of range, and names the nearest valid seqs for one inside a step', async () => {
    const out = await fork('r', { at: 7 });
    expect(out.status).toBe(400);
    expect(out.body.error).toMatchObject({ field: 'at', allowed: '0..6', message: 'at must be a seq of r in 0..6 (its events before it ended at seq 7), got 7' });
    const mid = await fork('r', { at: 2 });
    expect(mid.status).toBe(400);
    expect(mid.body.error?.message).toContain('fork at 0 or 3');
    for (const body of [{}, { at: -1 }, { at: 1.5 }, { at: '3' }, { at: 3, extra: 1 }, { at: 3, instruction: '' }]) {
      expect((await fork('r', body)).status).toBe(400);
    }
    expect(fake.calls.started).toEqual([]);
  });

  it('refuses a sub-agent (400) and a log with a record it cannot use (409)', async () => {
    const kid = await fork('r/kid', { at: 0 });
    expect(kid.status).toBe(400);
    expect(kid.body.error?.message).toBe('r/kid is a sub-agent of r: only a root session can be forked');
    log.problems = [{ kind: 'problem', problem: 'conflict', eventId: 'r/2', reason: 'two different records claim r/2' }];
    const damaged = await fork('r', { at: 3 });
    expect(damaged.status).toBe(409);
    expect(damaged.body.error).toMatchObject({ name: 'LogDamagedError', message: expect.stringContaining('two different records claim r/2') });
  });
});
