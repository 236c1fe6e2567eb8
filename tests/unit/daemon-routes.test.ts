import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKernelHost, sandboxKey, sessionWorkspaces } from '../../services/sandbox';
import { newRootSessionId } from '../../services/daemon/parse-requests';
import { DEFAULT_APPROVAL_POLICY } from '../../workflows/approvals/approval-policy';
import { fakeSessions, startTestServer, type TestServer } from '../helpers/daemon-test-server';

describe('daemon routes', () => {
  let srv: TestServer;
  let fake: ReturnType<typeof fakeSessions>;
  let script: string;

  beforeEach(async () => {
    fake = fakeSessions(['r1', 'r1/helper_2']);
    srv = await startTestServer({ sessions: fake.service });
    const [scripts] = srv.config.agent.scriptedDirs;
    mkdirSync(scripts, { recursive: true });
    script = join(scripts, 'replies.json');
    writeFileSync(script, '{}');
  });
  afterEach(() => srv.close());

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${srv.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { error?: { message: string } } & Record<string, unknown> };
  };

  it('starts a root session with the config limits and approval policy, name root and a fresh id', async () => {
    const { status, body } = await call('POST', '/v1/sessions', { task: 'add 2 and 2', model: 'openai/gpt-4o' });
    expect(status).toBe(201);
    expect(body.sessionId).toMatch(/^[a-z][a-z0-9-]*$/);
    const { agent } = srv.config;
    expect(fake.calls.started).toEqual([{
      sessionId: body.sessionId, rootId: body.sessionId, parentId: null, name: 'root', task: 'add 2 and 2',
      model: 'openai/gpt-4o', depth: 0, workspace: join(srv.config.home, 'workspaces', sandboxKey(body.sessionId as string)),
      limits: { maxTurns: agent.maxTurns, maxTokens: null, maxSeconds: null, cellTimeoutSeconds: agent.cellTimeoutSeconds, maxDepth: agent.maxDepth, turnsPerRun: agent.turnsPerRun, snapshotEveryCells: agent.snapshotEveryCells, idleUnloadSeconds: agent.idleUnloadSeconds, autoRefineTurns: 0, compactAtTokens: agent.compactAtTokens,
        maxChildren: agent.maxChildren, maxTreeSessions: agent.maxTreeSessions, messagesPerMinute: agent.messagesPerMinute, messageBurst: agent.messageBurst,
        sandbox: { mode: 'on', memoryBytes: 4 * 2 ** 30, processes: 1024, openFiles: 4096, fileBytes: 16 * 2 ** 30, net: 'none' } },
      approvals: DEFAULT_APPROVAL_POLICY, retain: true,
    }]);
  });

  it('starts a research root on its tier: the starting record, the archive mounted for the tree, no network on a tier without it', async () => {
    const res = await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', research: 'nqm-speedrun', knowledge: 'archive' });
    expect(res.status).toBe(201);
    const [input] = fake.calls.started;
    expect(input.research).toMatchObject({ task: 'nqm-speedrun', knowledge: 'archive', record: { id: 'r0-baseline', steps: 1003, n: 8 } });
    expect(input.limits.sandbox?.net).toBe('none');
    const binding = sessionWorkspaces(srv.config).own(input.sessionId);
    expect(binding).toMatchObject({ dir: input.workspace, knowledge: { tier: 'archive', papers: expect.stringMatching(/tasks\/nqm-speedrun\/papers$/) } });
    const full = await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', research: 'nqm-speedrun', knowledge: 'full', net: 'allow:papers.example.org' });
    expect(full.status).toBe(201);
    expect(fake.calls.started[1].limits.sandbox?.net).toBe('allow:papers.example.org');
  });

  it('starts a research root with one generator spec per model it names, in order', async () => {
    const res = await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', research: 'nqm-speedrun', generators: ['openai/gpt-4o', ' anthropic/claude-sonnet-4-5 ', 'openai/gpt-4o'] });
    expect(res.status).toBe(201);
    expect(fake.calls.started[0].research?.generators).toEqual(['openai/gpt-4o', 'anthropic/claude-sonnet-4-5', 'openai/gpt-4o']);
    await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', research: 'nqm-speedrun' });
    expect(fake.calls.started[1].research).not.toHaveProperty('generators');
  });

  it('starts a root that stays addressable after its answer unless the request says retain: false (CI, --once)', async () => {
    const once = await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', retain: false });
    expect(once.status).toBe(201);
    expect(fake.calls.started[0]).not.toHaveProperty('retain');
    const bad = await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', retain: 'no' });
    expect(bad).toMatchObject({ status: 400, body: { error: { message: 'retain must be true or false' } } });
    expect(fake.calls.started).toHaveLength(1);
  });

  it('a CI run (ci: true) gets a policy under which nobody is waited for; any other run is attended', async () => {
    expect((await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', ci: true })).status).toBe(201);
    expect((await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o' })).status).toBe(201);
    expect(fake.calls.started.map((s) => s.approvals?.unattended ?? false)).toEqual([true, false]);
    expect(fake.calls.started[0].approvals).toMatchObject({ require: DEFAULT_APPROVAL_POLICY.require });
    expect(await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', ci: 'yes' })).toMatchObject({ status: 400, body: { error: { message: 'ci must be true or false' } } });
  });

  it("forwards an operator's interrupt, model switch and compaction; a spec that does not parse is a 400 naming why", async () => {
    expect(await call('POST', '/v1/sessions/r1/interrupt')).toEqual({ status: 200, body: { interrupted: true } });
    expect(await call('POST', '/v1/sessions/r1/model', { model: 'anthropic/claude-sonnet-4-5' })).toEqual({ status: 200, body: { model: 'anthropic/claude-sonnet-4-5' } });
    expect(await call('POST', '/v1/sessions/r1/compact')).toEqual({ status: 200, body: { requested: true } });
    const bad = await call('POST', '/v1/sessions/r1/model', { model: 'no-slash' });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.message).toMatch(/no-slash/);
    expect((await call('POST', '/v1/sessions/r1/model', { model: 'scripted:relative.json' })).status).toBe(400);
    expect((await call('POST', '/v1/sessions/r9/interrupt')).status).toBe(404);
    expect(fake.calls.requests).toEqual([['r1', 'interrupt'], ['r1', { model: 'anthropic/claude-sonnet-4-5' }], ['r1', 'compact']]);
  });

  it('binds a tree to the cwd it is given, recorded for the host before the workflow starts; a bad one is a 400 naming it', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'recur-routes-cwd-')));
    const ok = await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', cwd: dir });
    expect(ok.status).toBe(201);
    expect(fake.calls.started.at(-1)?.workspace).toBe(dir);
    expect(createKernelHost(srv.config).place(`${ok.body.sessionId as string}/child`).workspace).toBe(dir);
    for (const [cwd, message] of [['rel/dir', 'cwd must be an absolute path, got "rel/dir"'], [join(dir, 'nope'), `cwd ${join(dir, 'nope')} does not exist`], [srv.config.home, 'inside the Recur home']]) {
      const bad = await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', cwd });
      expect(bad.status).toBe(400);
      expect(bad.body.error?.message).toContain(message);
    }
  });

  it("takes a tree's network policy (net) into its sandbox record, and refuses one that does not parse", async () => {
    const ok = await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', net: 'allow:PyPI.org:443' });
    expect(ok.status).toBe(201);
    expect(fake.calls.started.at(-1)?.limits.sandbox).toMatchObject({ mode: 'on', net: 'allow:pypi.org:443' });
    const bad = await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', net: 'allow:host:0' });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.message).toMatch(/^net: "host:0" in "allow:host:0" is not HOST or HOST:PORT/);
  });

  it('applies given limits and a name prefix, and accepts an absolute scripted path', async () => {
    const { status, body } = await call('POST', '/v1/sessions', {
      task: 't', model: `scripted:${script}`, name: 'nightly', limits: { maxTurns: 3, maxTokens: 5000 },
    });
    expect(status).toBe(201);
    expect(body.sessionId).toMatch(/^nightly-[a-z0-9]+$/);
    expect(fake.calls.started[0].limits).toMatchObject({ maxTurns: 3, maxTokens: 5000, maxSeconds: null });
  });

  it('passes a goal through and gives autonomous mode its overnight limits and gates', async () => {
    const { status } = await call('POST', '/v1/sessions', {
      task: 't', model: 'openai/gpt-4o', goal: { objective: 'beat the best', openEnded: true, tokenBudget: 9000 },
      autonomous: { gates: ['npm test'], gateCwd: '/tmp' }, limits: { maxTurns: 7 },
    });
    expect(status).toBe(201);
    const [input] = fake.calls.started;
    const a = srv.config.autonomous;
    expect(input.goal).toEqual({ objective: 'beat the best', openEnded: true, tokenBudget: 9000, secondsBudget: null, costBudgetUsd: null });
    expect(input.autonomous).toEqual({ gates: ['npm test'], gateCwd: '/tmp', gateTimeoutSeconds: a.gateTimeoutSeconds });
    expect(input.limits).toMatchObject({ maxTurns: 7, maxTokens: a.maxTokens, maxSeconds: a.maxSeconds, maxCostUsd: a.maxCostUsd });
  });

  it('forwards an operator\'s goal and schedule requests, and answers a refusal with 409 and its reason', async () => {
    expect(await call('POST', '/v1/sessions/r1/goal', { action: 'complete', evidence: 'judge accepted' })).toEqual({ status: 200, body: { goal: null } });
    expect(await call('POST', '/v1/sessions/r1/schedules', { action: 'add', spec: 'every 5m', instruction: 'check' })).toEqual({ status: 200, body: { schedules: [] } });
    const refused = await call('POST', '/v1/sessions/r1/goal', { action: 'clear' });
    expect(refused).toEqual({ status: 409, body: { error: { name: 'RefusedError', message: 'there is no open goal' } } });
    expect(fake.calls.requests).toEqual([
      ['r1', { by: 'operator', action: 'complete', evidence: 'judge accepted' }],
      ['r1', { action: 'add', spec: 'every 5m', instruction: 'check' }],
      ['r1', { by: 'operator', action: 'clear' }],
    ]);
    expect((await call('POST', '/v1/sessions/r1/goal', { action: 'finish' })).body.error?.message).toMatch(/action must be one of/);
    expect((await call('POST', '/v1/sessions/r1/schedules', {})).status).toBe(400);
    expect((await call('POST', '/v1/sessions/nope/goal', { action: 'get' })).status).toBe(404);
  });

  it.each([
    ['a body that is not JSON', '{task:', /not JSON/],
    ['a goal without objective', { task: 't', model: 'openai/gpt-4o', goal: { tokenBudget: 5 } }, /goal: a goal needs a non-empty objective/],
    ['a goal with a bad budget', { task: 't', model: 'openai/gpt-4o', goal: { objective: 'o', tokenBudget: -1 } }, /goal.tokenBudget must be an integer 1..10000000000 or null, got -1/],
    ['a gate that is not a string', { task: 't', model: 'openai/gpt-4o', autonomous: { gates: [3] } }, /autonomous.gates must be/],
    ['a JSON array', [], /JSON object/],
    ['no task', { model: 'openai/gpt-4o' }, /task must be a non-empty string/],
    ['a blank task', { task: '  ', model: 'openai/gpt-4o' }, /task must be a non-empty string/],
    ['no model', { task: 't' }, /model must be a non-empty string/],
    ['a model without provider', { task: 't', model: 'gpt-4o' }, /expected <provider>\/<model>/],
    ['an unknown provider', { task: 't', model: 'nope/x' }, /unknown provider "nope"/],
    ['a relative scripted path', { task: 't', model: 'scripted:replies.json' }, /absolute path/],
    ['a scripted file outside the allowed directories', { task: 't', model: 'scripted:/etc/passwd' }, /scripted:\/etc\/passwd: .*not under a directory scripted models may read from/],
    ['an unknown field', { task: 't', model: 'openai/gpt-4o', budget: 3 }, /unknown field\(s\): budget/],
    ['a bad name', { task: 't', model: 'openai/gpt-4o', name: 'Has Spaces' }, /name must be/],
    ['an unknown limit', { task: 't', model: 'openai/gpt-4o', limits: { turns: 3 } }, /unknown limit "turns"/],
    ['a negative limit', { task: 't', model: 'openai/gpt-4o', limits: { maxTurns: -1 } }, /limits.maxTurns must be an integer 1..100000, got -1/],
    ['a null maxTurns', { task: 't', model: 'openai/gpt-4o', limits: { maxTurns: null } }, /limits.maxTurns must be an integer 1..100000, got null/],
    ['a huge task', { task: 'x'.repeat(100_001), model: 'openai/gpt-4o' }, /limit is 100000/],
    ['an unknown research task', { task: 't', model: 'openai/gpt-4o', research: 'nope' }, /research must name a shipped task \(nqm-speedrun\), got "nope"/],
    ['a tier without research', { task: 't', model: 'openai/gpt-4o', knowledge: 'archive' }, /knowledge is a research session's tier/],
    ['an unknown tier', { task: 't', model: 'openai/gpt-4o', research: 'nqm-speedrun', knowledge: 'all' }, /unknown knowledge tier "all"/],
    ['a network the tier has not', { task: 't', model: 'openai/gpt-4o', research: 'nqm-speedrun', net: 'full' }, /the weights-only tier has no network: drop --net full/],
    ['generators without research', { task: 't', model: 'openai/gpt-4o', generators: ['openai/gpt-4o'] }, /generators are a research session's: pass them with research/],
    ['generators that are no list', { task: 't', model: 'openai/gpt-4o', research: 'nqm-speedrun', generators: 'openai/gpt-4o' }, /generators must be 1 to 8 model specs, got "openai\/gpt-4o"/],
    ['an empty generator list', { task: 't', model: 'openai/gpt-4o', research: 'nqm-speedrun', generators: [] }, /generators must be 1 to 8 model specs, got \[\]/],
    ['nine generators', { task: 't', model: 'openai/gpt-4o', research: 'nqm-speedrun', generators: Array(9).fill('openai/gpt-4o') }, /generators must be 1 to 8 model specs/],
    ['a blank generator', { task: 't', model: 'openai/gpt-4o', research: 'nqm-speedrun', generators: ['openai/gpt-4o', ' '] }, /generators must be 1 to 8 model specs/],
    ['a generator model that does not parse', { task: 't', model: 'openai/gpt-4o', research: 'nqm-speedrun', generators: ['openai/gpt-4o', 'nope/x'] }, /unknown provider "nope"/],
    ['a generator script outside the allowed directories', { task: 't', model: 'openai/gpt-4o', research: 'nqm-speedrun', generators: ['scripted:/etc/passwd'] }, /scripted:\/etc\/passwd: .*not under a directory scripted models may read from/],
  ])('answers 400 to POST /v1/sessions with %s', async (_, body, message) => {
    const res = await call('POST', '/v1/sessions', body);
    expect(res.status).toBe(400);
    expect(res.body.error?.message).toMatch(message);
    expect(fake.calls.started).toEqual([]);
  });

  it('answers 400 to a scripted file that is missing from an allowed directory', async () => {
    const res = await call('POST', '/v1/sessions', { task: 't', model: `scripted:${script}.absent` });
    expect(res.status).toBe(400);
    expect(res.body.error?.message).toMatch(/replies\.json\.absent: cannot read/);
  });

  it.each([
    ['maxDepth', 9, 'an integer 0..8'],
    ['maxDepth', 1.5, 'an integer 0..8'],
    ['cellTimeoutSeconds', 86_401, 'an integer 1..86400'],
    ['cellTimeoutSeconds', '60', 'an integer 1..86400'],
    ['cellTimeoutSeconds', 0, 'an integer 1..86400'],
    ['maxTurns', 1e9, 'an integer 1..100000'],
    ['turnsPerRun', 0, 'an integer 1..10000'],
    ['snapshotEveryCells', true, 'an integer 1..10000'],
    ['idleUnloadSeconds', -5, 'an integer 1..2592000'],
    ['maxTokens', 0, 'an integer 1..10000000000 or null'],
    ['maxSeconds', 31 * 86_400, 'an integer 1..2592000 or null'],
    ['maxCostUsd', 0, 'a number 0.01..1000000 or null'],
    ['compactAtTokens', 10, 'an integer 100..100000000 or null'],
    ['autoRefineTurns', -1, 'an integer 0..100000'],
  ])('answers 400 to limits.%s = %j, naming the field and its range', async (key, value, allowed) => {
    const res = await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', limits: { [key]: value } });
    expect(res).toEqual({ status: 400, body: { error: {
      name: 'BadRequestError', field: `limits.${key}`, allowed, message: `limits.${key} must be ${allowed}, got ${JSON.stringify(value)}`,
    } } });
    expect(fake.calls.started).toEqual([]);
  });

  it.each([
    ['tokenBudget', 0, 'an integer 1..10000000000 or null'],
    ['secondsBudget', 'soon', 'an integer 1..31536000 or null'],
    ['costBudgetUsd', 2e6, 'a number 0.01..1000000 or null'],
  ])('answers 400 to goal.%s = %j, naming the field and its range', async (key, value, allowed) => {
    const res = await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', goal: { objective: 'o', [key]: value } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ field: `goal.${key}`, allowed });
  });

  it('takes limits at the edges of their ranges: maxDepth 0, a day-long cell, null budgets', async () => {
    const limits = { maxDepth: 0, cellTimeoutSeconds: 86_400, maxTokens: null, maxCostUsd: 2.5, compactAtTokens: null, autoRefineTurns: 0 };
    expect((await call('POST', '/v1/sessions', { task: 't', model: 'openai/gpt-4o', limits })).status).toBe(201);
    expect(fake.calls.started[0].limits).toMatchObject(limits);
  });

  it('answers 413 to a body over 1 MiB, declared or streamed without a length', async () => {
    const res = await call('POST', '/v1/sessions', { task: 'x'.repeat(1100 * 1024), model: 'openai/gpt-4o' });
    expect(res.status).toBe(413);
    const chunk = new Uint8Array(256 * 1024).fill(32);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 6) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const streamed = await fetch(`${srv.url}/v1/sessions`, {
      method: 'POST', headers: { authorization: `Bearer ${srv.token}` }, body, duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(fake.calls.started).toEqual([]);
  });

  it('signals a message from user with a fresh id to a URL-encoded child id', async () => {
    const path = `/v1/sessions/${encodeURIComponent('r1/helper_2')}/messages`;
    const a = await call('POST', path, { text: 'hurry up' });
    const b = await call('POST', path, { text: 'really' });
    expect(a.status).toBe(200);
    expect(a.body.messageId).toMatch(/^user#[0-9a-f]{16}$/);
    expect(b.body.messageId).not.toBe(a.body.messageId);
    expect(fake.calls.messages).toEqual([
      ['r1/helper_2', { messageId: a.body.messageId, from: 'user', text: 'hurry up' }],
      ['r1/helper_2', { messageId: b.body.messageId, from: 'user', text: 'really' }],
    ]);
  });

  it('answers 404 to a message or kill for a session that is not running, 400 to an empty text', async () => {
    expect((await call('POST', '/v1/sessions/r9/messages', { text: 'hi' })).status).toBe(404);
    expect((await call('POST', '/v1/sessions/r9/kill')).status).toBe(404);
    expect((await call('POST', '/v1/sessions/r1/messages', { text: '' })).status).toBe(400);
    expect((await call('POST', '/v1/sessions/r1/messages')).status).toBe(400);
    expect(fake.calls.messages).toEqual([]);
  });

  it('cancels a running session', async () => {
    const res = await call('POST', '/v1/sessions/r1/kill');
    expect(res.status).toBe(200);
    expect(fake.calls.cancelled).toEqual(['r1']);
  });

  it.each([
    ['an upper-case id', '/v1/sessions/R1'],
    ['a root id starting with a digit', '/v1/sessions/1abc'],
    ['an empty child segment', `/v1/sessions/${encodeURIComponent('r1//x')}`],
    ['bad percent-encoding', '/v1/sessions/%E0%A4%A'],
  ])('answers 400 to %s', async (_, path) => {
    expect((await call('GET', path)).status).toBe(400);
  });

  it('answers 404 to unknown routes and 426 to a plain GET of the event stream', async () => {
    expect((await call('GET', '/v2/health')).status).toBe(404);
    expect((await call('DELETE', '/v1/sessions/r1')).status).toBe(404);
    expect((await call('GET', '/v1/sessions/r1/nothing')).status).toBe(404);
    expect((await call('GET', '/v1/sessions/r1/events')).status).toBe(426);
  });

  it('lists and describes sessions', async () => {
    const list = await call('GET', '/v1/sessions');
    expect(list.body.sessions).toEqual(expect.arrayContaining([expect.objectContaining({ sessionId: 'r1', status: 'running' })]));
    expect((await call('GET', '/v1/sessions?limit=0')).status).toBe(400);
    const one = await call('GET', `/v1/sessions/${encodeURIComponent('r1/helper_2')}`);
    expect(one.body).toMatchObject({ sessionId: 'r1/helper_2', runId: 'run-1' });
    expect((await call('GET', '/v1/sessions/r404')).status).toBe(404);
  });
});

describe('newRootSessionId', () => {
  it('makes distinct ids that start with a letter and hold only a-z, 0-9 and -', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newRootSessionId(undefined, 1_700_000_000_000)));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^r[a-z0-9]+$/);
    expect(newRootSessionId('ci-run')).toMatch(/^ci-run-[a-z0-9]+$/);
  });
});
