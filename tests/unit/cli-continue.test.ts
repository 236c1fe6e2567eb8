import type { WebSocket } from 'ws';
import type { RecurEventInput, StoredEvent } from '../../schemas';
import { runCli } from '../../services/cli/cli';
import { answerTo, endCode, endOfRound, lastEndOf } from '../../services/cli/turn-end';
import { isPastCursor, type Cursor } from '../../services/daemon/cursor';
import { fakeSessions, startTestServer, type TestServer } from '../helpers/daemon-test-server';
import { sampleSession } from './event-samples';

/* Following a root that stays open after its answer: where `run`, `attach` and `send --wait` stop. */

const START: RecurEventInput = { type: 'SessionStarted', task: 'add', name: 'root', model: 'scripted', depth: 0, maxDepth: 2, maxTurns: 10, cellTimeoutSeconds: 60 };
const called = (turn: number, response: string): RecurEventInput => ({
  type: 'ModelCalled', turn, model: 'm', provider: 'scripted', tokensIn: 1, tokensOut: 1, costUsd: 0, latencyMs: 1, response, stopReason: 'end', toolCalls: [],
});

/** A root that answered, was sent `messageId`, and answered that too. */
function rounds(id: string, messageId: string): StoredEvent[] {
  return sampleSession(id, [
    START, called(1, 'four'), { type: 'SessionCompleted', answer: 'four' },
    { type: 'SessionResumed', messageId, from: 'user', round: 1, unloaded: false, idleSeconds: 3 },
    { type: 'MessageDelivered', messageId, from: 'user', to: id, via: 'prompt', text: 'and times ten?' },
    called(2, 'forty'), { type: 'TaskEnded', round: 1, status: 'completed', answer: 'forty' },
  ]).records as StoredEvent[];
}

describe('where a follow of a root stops (turn-end.ts)', () => {
  const log = rounds('r1', 'user#1');
  const firstStop = (ends: (e: StoredEvent) => boolean) => log.find(ends)?.type;

  test('run stops at the first answer; attach at the end of the round the root is in', () => {
    expect(firstStop(endOfRound('r1', 0))).toBe('SessionCompleted');
    expect(firstStop(endOfRound('r1', 1))).toBe('TaskEnded');
    expect(firstStop(endOfRound('r1', 2))).toBeUndefined();
  });

  test("send --wait stops at the end of the round that took its message, not an earlier round's", () => {
    expect(firstStop(answerTo('r1', 'user#1'))).toBe('TaskEnded');
    expect(firstStop(answerTo('r1', 'user#2'))).toBeUndefined();
    // The session's end for good ends every wait.
    const closed = sampleSession('r1', [START, { type: 'SessionClosed', reason: 'killed', round: 0, idle: true }]).records as StoredEvent[];
    expect(closed.find(answerTo('r1', 'user#2'))?.type).toBe('SessionClosed');
    expect(endCode(closed[1])).toBe(1);
  });

  test("a closed session's log ends at its last root end; a round that failed is exit 1", () => {
    expect(log.find(lastEndOf(log, 'r1'))?.seq).toBe(6);
    const failed = sampleSession('r1', [START, { type: 'TaskEnded', round: 1, status: 'failed', reason: 'turn limit' }]).records as StoredEvent[];
    expect(endCode(failed[1])).toBe(1);
    expect(endCode(log[6])).toBe(0);
  });
});

describe('recur run / send --wait against a fake daemon', () => {
  let srv: TestServer;
  let fake: ReturnType<typeof fakeSessions>;
  const env = { ...process.env };
  /** The log so far: the first round until a message arrives, then the round answering it. */
  const logged = (id: string): StoredEvent[] => {
    const sent = fake.calls.messages.find(([to]) => to === id)?.[1].messageId;
    const all = rounds(id, sent ?? 'none');
    return sent ? all : all.slice(0, 3);
  };

  const stream = async (ws: WebSocket, sessionId: string, cursor: Cursor): Promise<void> => {
    for (const e of logged(sessionId).filter((x) => isPastCursor(cursor, x.sessionId, x.seq))) {
      await new Promise<void>((resolve, reject) => ws.send(JSON.stringify(e), (err) => (err ? reject(err) : resolve())));
    }
    // The root stays open: the stream never ends by itself.
    await new Promise((resolve) => ws.once('close', resolve));
  };

  beforeEach(async () => {
    fake = fakeSessions(['r0abc', 'r1xyz']);
    srv = await startTestServer({ sessions: fake.service, stream, readLog: async (id) => ({ events: logged(id), problems: [] }) });
    process.env.RECUR_HOME = srv.config.home;
    process.env.RECUR_DAEMON_PORT = String(srv.config.ports.daemon);
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

  test('run prints the answer and exits 0 at SessionCompleted although the root stays open, and says how to continue it', async () => {
    const r = await cli('run', 'add 2 and 2', '--model', 'openai/gpt-4o', '--no-ci');
    expect(r.code).toBe(0);
    expect(r.out.slice(-1)).toEqual(['four']);
    const id = fake.calls.started[0].sessionId;
    expect(fake.calls.started[0].retain).toBe(true);
    expect(r.err.at(-1)).toBe(`${id} stays open: recur send ${id} "<follow-up>" --wait continues it, recur kill ${id} ends it`);
  });

  test('run --once and run --ci ask for a root that ends at its answer; only --ci for one whose approvals nobody answers', async () => {
    await cli('run', 'x', '--model', 'openai/gpt-4o', '--once', '--no-ci');
    await cli('run', 'x', '--model', 'openai/gpt-4o', '--ci');
    expect(fake.calls.started.map((s) => s.retain ?? false)).toEqual([false, false]);
    expect(fake.calls.started.map((s) => s.approvals?.unattended ?? false)).toEqual([false, true]);
  });

  test('send --wait prints only what follows the message, ending with the answer to it', async () => {
    const r = await cli('send', 'r0abc', 'and times ten?', '--wait');
    expect(r.code).toBe(0);
    const [[, message]] = fake.calls.messages;
    expect(r.out).toEqual([
      `r0abc #3 SessionResumed  round 1 by user ${message.messageId} after 3s idle`,
      'r0abc #4 MessageDelivered  user → r0abc via prompt: "and times ten?"',
      'r0abc #5 ModelCalled  turn 2 scripted/m 1+1 tok $0.0000 0.0s → "forty"',
      'r0abc #6 TaskEnded  round 1 completed: answer: "forty"',
      '',
      'forty',
    ]);
    const json = await cli('send', 'r1xyz', 'and times ten?', '--wait', '--json');
    expect(json.out).toHaveLength(4);
    expect(JSON.parse(json.out.at(-1)!)).toMatchObject({ type: 'TaskEnded', event: { round: 1, answer: 'forty' } });
  });
});
