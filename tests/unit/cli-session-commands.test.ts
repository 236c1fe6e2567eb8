import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebSocket } from 'ws';
import { ExitError } from '../../errors';
import type { RecurEventInput, StoredEvent } from '../../schemas';
import { runCli } from '../../services/cli/cli';
import { cursorFile, saveCursor } from '../../services/cli/cursor-file';
import { shortSessionId } from '../../services/cli/format-event';
import { DAEMON_NOT_RUNNING } from '../../services/cli/daemon-client';
import { resolveModel } from '../../services/cli/commands/run';
import type { Cursor } from '../../services/daemon/cursor';
import { isPastCursor } from '../../services/daemon/cursor';
import { daemonPaths } from '../../services/daemon/paths';
import { fakeSessions, startTestServer, type TestServer } from '../helpers/daemon-test-server';
import { sampleSession } from './event-samples';

/** The tree the fake daemon streams for any root id: root events 0-2, the child's only event, root 3-5. */
function tree(rootId: string, end: RecurEventInput): StoredEvent[] {
  const root = sampleSession(rootId, [
    { type: 'SessionStarted', task: 'add', name: 'root', model: 'scripted', depth: 0, maxDepth: 2, maxTurns: 10, cellTimeoutSeconds: 60 },
    { type: 'CellRequested', cellId: 'c1', code: 'rlm("check")' },
    { type: 'SubagentSpawned', childId: `${rootId}/helper`, name: 'helper', task: 'check', model: 'scripted' },
    { type: 'CellExecuted', requestId: `${rootId}/1`, code: 'rlm("check")', status: 'ok', outputs: 'checked\n', durationMs: 5 },
    { type: 'SubagentCompleted', childId: `${rootId}/helper`, status: 'completed', answer: 'checked' },
    end,
  ]).records as StoredEvent[];
  const child = sampleSession(`${rootId}/helper`, [{ type: 'SessionCompleted', answer: 'checked' }]).records as StoredEvent[];
  return [...root.slice(0, 3), ...child, ...root.slice(3)];
}

/** As the log read returns them: session by session (a parent before its children), each by seq. */
const sortedBySession = (events: StoredEvent[]): StoredEvent[] =>
  [...events].sort((a, b) => (a.sessionId === b.sessionId ? a.seq - b.seq : a.sessionId < b.sessionId ? -1 : 1));

describe('recur run / attach / ls / send / kill against a fake daemon', () => {
  let srv: TestServer;
  let fake: ReturnType<typeof fakeSessions>;
  let end: RecurEventInput;
  /** Events with seq at or below this one are sent before the stream hangs until the client leaves. */
  let hangAfterRootSeq: number | null;
  /** Past this root seq the daemon ends the stream as it does when the workflow closes (and the session is `failed`). */
  let closeAfterRootSeq: number | null;
  let statuses: Record<string, string>;
  let logEvents: (id: string) => StoredEvent[];
  const cursorsSeen: Cursor[] = [];
  const env = { ...process.env };
  const cwd = mkdtempSync(join(tmpdir(), 'recur-cli-cwd-'));

  const stream = async (ws: WebSocket, sessionId: string, cursor: Cursor): Promise<void> => {
    cursorsSeen.push(cursor);
    for (const e of tree(sessionId, end).filter((x) => isPastCursor(cursor, x.sessionId, x.seq))) {
      if (closeAfterRootSeq !== null && e.sessionId === sessionId && e.seq > closeAfterRootSeq) {
        statuses[sessionId] = 'failed';
        ws.close(1000, 'session closed');
        return;
      }
      if (hangAfterRootSeq !== null && e.sessionId === sessionId && e.seq > hangAfterRootSeq) {
        await new Promise((resolve) => ws.once('close', resolve));
        return;
      }
      await new Promise<void>((resolve, reject) => ws.send(JSON.stringify(e), (err) => (err ? reject(err) : resolve())));
    }
    await new Promise((resolve) => ws.once('close', resolve));
  };

  beforeEach(async () => {
    statuses = {};
    fake = fakeSessions(['r0abc'], statuses);
    logEvents = (id) => tree(id, end);
    end = { type: 'SessionCompleted', answer: 'four\nexactly' };
    hangAfterRootSeq = null;
    closeAfterRootSeq = null;
    cursorsSeen.length = 0;
    srv = await startTestServer({ sessions: fake.service, stream, readLog: async (id) => ({ events: sortedBySession(logEvents(id)), problems: [] }) });
    process.env.RECUR_HOME = srv.config.home;
    process.env.RECUR_DAEMON_PORT = String(srv.config.ports.daemon);
    delete process.env.RECUR_MODEL;
  });
  afterEach(async () => {
    process.env = { ...env };
    await srv.close();
  });

  const cli = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { out: (l: string) => out.push(l), err: (l: string) => err.push(l) });
    return { code, out, err };
  };

  it('run --json streams the tree as NDJSON whose last line is the root end event, exit 0', async () => {
    const { code, out } = await cli('run', 'add 2 and 2', '--model', 'openai/gpt-4o', '--json');
    expect(code).toBe(0);
    const id = fake.calls.started[0].sessionId;
    const events = out.map((l) => JSON.parse(l) as StoredEvent);
    expect(events.map((e) => e.eventId)).toEqual([`${id}/0`, `${id}/1`, `${id}/2`, `${id}/helper/0`, `${id}/3`, `${id}/4`, `${id}/5`]);
    expect(events[events.length - 1]).toMatchObject({ sessionId: id, type: 'SessionCompleted', event: { answer: 'four\nexactly' } });
    expect(existsSync(cursorFile(srv.config, id))).toBe(false);
  });

  it('run prints one readable line per event, then the whole answer; a failed session exits 1', async () => {
    let r = await cli('run', 'add 2 and 2', '--model', 'openai/gpt-4o');
    expect(r.code).toBe(0);
    expect(r.out.slice(0, 7).every((l) => /^\S+ #\d+ [A-Z]\w+/.test(l))).toBe(true);
    const short = shortSessionId(fake.calls.started[0].sessionId);
    expect(r.out.slice(0, 4)).toEqual([
      `${short} #0 SessionStarted  root scripted depth 0: "add"`,
      `${short} #1 CellRequested  "rlm(\\"check\\")"`,
      `${short} #2 SubagentSpawned  helper (scripted): "check"`,
      `${short}/helper #0 SessionCompleted  answer: "checked"`,
    ]);
    expect(r.out.slice(-2)).toEqual(['', 'four\nexactly']);

    end = { type: 'SessionFailed', kind: 'max_turns', reason: 'turn limit 10 reached' };
    r = await cli('run', 'add 2 and 2', '--model', 'openai/gpt-4o', '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out[r.out.length - 1])).toMatchObject({ type: 'SessionFailed', event: { kind: 'max_turns' } });
  });

  it('run takes RECUR_MODEL when there is no flag, resolves scripted paths, and fails clearly without a model', async () => {
    expect(resolveModel(undefined, 'scripted:replies.json', cwd)).toBe(`scripted:${join(cwd, 'replies.json')}`);
    expect(resolveModel('openai/gpt-4o', 'anthropic/x', cwd)).toBe('openai/gpt-4o');
    await expect(cli('run', 'task')).rejects.toThrow(/no model: pass --model/);
    const [scripts] = srv.config.agent.scriptedDirs;
    mkdirSync(scripts, { recursive: true });
    const script = join(scripts, 'replies.json');
    writeFileSync(script, '{}');
    process.env.RECUR_MODEL = `scripted:${script}`;
    const { code, out } = await cli('run', 'task', '--detach');
    expect(code).toBe(0);
    expect(out).toEqual([fake.calls.started[0].sessionId]);
    expect(fake.calls.started[0].model).toBe(`scripted:${script}`);
    expect(cursorsSeen).toEqual([]); // detached at once: no stream opened
  });

  it('run binds the tree to --cwd (resolved from where it is called, links resolved), else to where it is called; gates run there', async () => {
    const repo = join(cwd, 'repo');
    mkdirSync(repo, { recursive: true });
    const real = realpathSync(repo);
    expect((await cli('run', 'task', '--model', 'openai/gpt-4o', '--cwd', repo, '--autonomous', '--gate', 'true', '--detach')).code).toBe(0);
    expect(fake.calls.started[0].workspace).toBe(real);
    expect(fake.calls.started[0].autonomous?.gateCwd).toBe(repo);
    const here = process.cwd();
    process.chdir(real);
    try {
      expect((await cli('run', 'task', '--model', 'openai/gpt-4o', '--detach')).code).toBe(0);
    } finally {
      process.chdir(here);
    }
    expect(fake.calls.started[1].workspace).toBe(real);
    await expect(cli('run', 'task', '--model', 'openai/gpt-4o', '--cwd', join(repo, 'missing'))).rejects.toThrow(`cwd ${join(repo, 'missing')} does not exist`);
  });

  it('Ctrl-C detaches with exit 130 and saves the cursor; attach resumes after it and ends with the session', async () => {
    hangAfterRootSeq = 2;
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['run', 'add 2 and 2', '--model', 'openai/gpt-4o', '--json'], {
      out: (l: string) => {
        out.push(l);
        if (out.length === 4) setImmediate(() => process.emit('SIGINT')); // root 0-2 and the child's 0 are in
      },
      err: (l: string) => err.push(l),
    });
    expect(code).toBe(130);
    const id = fake.calls.started[0].sessionId;
    const saved = { [id]: 2, [`${id}/helper`]: 0 };
    expect(JSON.parse(readFileSync(cursorFile(srv.config, id), 'utf8'))).toEqual(saved);
    expect(err.join('\n')).toContain(`recur attach ${id} --json`);
    expect(fake.calls.cancelled).toEqual([]); // detaching never stops the session

    hangAfterRootSeq = null;
    const attached = await cli('attach', id, '--json');
    expect(attached.code).toBe(0);
    expect(cursorsSeen[1]).toEqual(saved);
    expect(attached.out.map((l) => JSON.parse(l).eventId)).toEqual([`${id}/3`, `${id}/4`, `${id}/5`]);
    expect(existsSync(cursorFile(srv.config, id))).toBe(false);
  });

  it('attach to an ended session prints what is left up to its end from the log and exits with its code', async () => {
    end = { type: 'SessionFailed', kind: 'cancelled', reason: 'the session was cancelled' };
    statuses.r0abc = 'completed';
    saveCursor(srv.config, 'r0abc', { r0abc: 3 });
    const r = await cli('attach', 'r0abc');
    expect(r.code).toBe(1);
    expect(r.out).toEqual(['r0abc #4 SubagentCompleted  r0abc/helper completed: "checked"', 'r0abc #5 SessionFailed  cancelled: the session was cancelled']);
    expect(cursorsSeen).toEqual([]); // no live stream for a closed session

    logEvents = (id) => tree(id, end).filter((e) => e.type !== 'SessionFailed');
    expect(existsSync(cursorFile(srv.config, 'r0abc'))).toBe(false); // ended: nothing left to resume
    await expect(cli('attach', 'r0abc')).rejects.toThrow('r0abc is completed but logged no end event');
  });

  it('run shows the daemon\'s 400 for an out-of-range number, naming the field and its range, and exits 1', async () => {
    const run = cli('run', 'task', '--model', 'openai/gpt-4o', '--goal', 'g', '--goal-seconds', '99999999999');
    await expect(run).rejects.toThrow(new ExitError(1, 'goal.secondsBudget must be an integer 1..31536000 or null, got 99999999999'));
    expect(fake.calls.started).toEqual([]);
  });

  it('a live stream the daemon ends because the workflow closed: the rest comes from the log, and no end event there is exit 1', async () => {
    end = { type: 'SessionFailed', kind: 'internal', reason: 'appendEvents failed for good' };
    statuses.r0abc = 'running';
    closeAfterRootSeq = 3;
    const r = await cli('attach', 'r0abc', '--json');
    expect(r.code).toBe(1);
    expect(r.out.map((l) => JSON.parse(l).eventId)).toEqual(['r0abc/0', 'r0abc/1', 'r0abc/2', 'r0abc/helper/0', 'r0abc/3', 'r0abc/4', 'r0abc/5']);

    statuses.r0abc = 'running';
    saveCursor(srv.config, 'r0abc', {});
    logEvents = (id) => tree(id, end).filter((e) => e.type !== 'SessionFailed');
    await expect(cli('attach', 'r0abc')).rejects.toThrow('r0abc is failed but logged no end event');
  });

  it('ls, send and kill talk to the daemon; an unknown session is a clear error', async () => {
    const ls = await cli('ls');
    expect(ls.out[0]).toMatch(/^SESSION\s+STATUS\s+STARTED\s+CLOSED$/);
    expect(ls.out[1]).toMatch(/^r0abc\s+running\s+1970-01-01 00:00:00Z\s+-$/);
    expect(JSON.parse((await cli('ls', '--json')).out[0]).sessions).toHaveLength(1);

    const sent = await cli('send', 'r0abc', 'please hurry');
    expect(sent.out[0]).toMatch(/^sent user#[0-9a-f]+ to r0abc$/);
    expect(fake.calls.messages).toEqual([['r0abc', expect.objectContaining({ from: 'user', text: 'please hurry' })]]);

    expect((await cli('kill', 'r0abc')).code).toBe(0);
    expect(fake.calls.cancelled).toEqual(['r0abc']);
    await expect(cli('send', 'r9', 'hi')).rejects.toThrow('no running session r9');
    await expect(cli('send', 'r0abc')).rejects.toMatchObject({ code: 2 });
  });

  it('says the daemon is not running when there is no token or nobody listens', async () => {
    rmSync(daemonPaths(srv.config).token);
    await expect(cli('ls')).rejects.toThrow(new ExitError(1, DAEMON_NOT_RUNNING));
    writeFileSync(daemonPaths(srv.config).token, srv.token);
    await srv.close();
    await expect(cli('ls')).rejects.toThrow(DAEMON_NOT_RUNNING);
    await expect(cli('attach', 'r0abc')).rejects.toThrow(DAEMON_NOT_RUNNING);
  });
});
