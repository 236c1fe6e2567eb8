import type { WebSocket } from 'ws';
import type { StoredEvent } from '../../schemas';
import type { DeltaFrame, LiveFrame } from '../../services/daemon/api-types';
import { connectDaemon, type DaemonClient } from '../../services/cli/daemon-client';
import { createChatSession } from '../../services/cli/chat/chat-session';
import { createChatView } from '../../services/cli/chat/chat-view';
import { formatTree, runSlash } from '../../services/cli/chat/slash-commands';
import { costTree } from '../../services/projector/cost-tree';
import { cliInProcess } from '../helpers/cli-in-process';
import { fakeSessions, startTestServer, type TestServer } from '../helpers/daemon-test-server';
import { sampleSession } from './event-samples';

const root = sampleSession('r1').records as StoredEvent[];
const kid = sampleSession('r1/helper', [
  { type: 'SessionStarted', task: 'check it', name: 'helper', model: 'scripted', depth: 1, maxDepth: 2, maxTurns: 10, cellTimeoutSeconds: 60 },
  { type: 'ModelCalled', turn: 0, model: 'scripted', provider: 'scripted', tokensIn: 1, tokensOut: 1, costUsd: 0, latencyMs: 1, response: 'checked: 4', stopReason: 'end', toolCalls: [] },
  { type: 'SessionCompleted', answer: 'checked: 4' },
]).records as StoredEvent[];
const delta = (sessionId: string, turn: number, text: string): DeltaFrame => ({ kind: 'delta', sessionId, turn, text });

function rendered(frames: LiveFrame[]): string {
  let out = '';
  const view = createChatView('r1', (t) => (out += t));
  for (const f of frames) view.render(f);
  view.endLine();
  return out;
}

describe('chat view', () => {
  it('shows streamed text once, as it streams, then the cell with its code and output', () => {
    const out = rendered([root[0], delta('r1', 1, 'Let me '), delta('r1', 1, 'compute.'), root[1], root[2], root[3]]);
    expect(out).toBe('agent › Let me compute.\n  ┆ print(2+2)\n  → 4\n');
  });

  it('prints a reply from its ModelCalled when no delta of it arrived', () => {
    expect(rendered([root[1]])).toBe('agent › Let me compute.\n');
  });

  it('indents a sub-agent under its parent, and interleaved streams each get their own line', () => {
    const out = rendered([root[4], delta('r1/helper', 0, 'chec'), delta('r1', 1, 'Let me'), delta('r1/helper', 0, 'ked: 4'), kid[1], kid[2]]);
    expect(out).toBe('  ↳ helper (scripted): check it\n  helper › chec\nagent › Let me\n  helper › ked: 4\n');
  });

  it('prints an answer that differs from the last reply, and a failure with its reason', () => {
    expect(rendered([root[1], root[5]])).toBe('agent › Let me compute.\nagent › forty-two\n');
    const failed = sampleSession('r1', [{ type: 'SessionFailed', kind: 'cancelled', reason: 'killed by the user' }]).records as StoredEvent[];
    expect(rendered(failed)).toBe('✗ agent failed (cancelled): killed by the user\n');
  });
});

describe('chat session against the daemon API', () => {
  let server: TestServer | undefined;
  afterEach(async () => server?.close());

  it('follows live frames with deltas, ends the turn on the root answer, and sends a follow-up as a user message', async () => {
    const sessions = fakeSessions(['r1']);
    let query = '';
    const stream = async (ws: WebSocket, _id: string, _c: unknown, o: { deltas: boolean }) => {
      query = o.deltas ? 'deltas' : 'none';
      for (const f of [root[0], delta('r1', 1, 'Let me compute.'), ...root.slice(1)]) ws.send(JSON.stringify(f));
    };
    server = await startTestServer({ sessions: sessions.service, stream });
    let out = '';
    const ended: boolean[] = [];
    const session = createChatSession({
      daemon: connectDaemon(server.config), sessionId: 'r1', cursor: {}, view: createChatView('r1', (t) => (out += t)),
      onTurnEnd: (failed) => ended.push(failed), onError: (m) => { throw new Error(m); },
    });
    session.start({ busy: true, closed: false });
    while (ended.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(query).toBe('deltas');
    expect(ended).toEqual([false]);
    expect(session.busy).toBe(false);
    expect(session.cursor).toEqual({ r1: 5 });
    expect(out).toContain('agent › Let me compute.\n  ┆ print(2+2)\n  → 4\n');
    await session.send('and now 3+3?');
    expect(session.busy).toBe(true);
    expect(sessions.calls.messages).toEqual([['r1', expect.objectContaining({ from: 'user', text: 'and now 3+3?' })]]);
    await session.close();
  });

  it('interrupts the session whose cell runs, and nothing once its cell has ended', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const stream = async (ws: WebSocket) => {
      for (const f of root.slice(0, 3)) ws.send(JSON.stringify(f));
      await released;
      ws.send(JSON.stringify(root[3]));
    };
    server = await startTestServer({ sessions: fakeSessions(['r1']).service, stream });
    const posted: string[] = [];
    const daemon: DaemonClient = {
      ...connectDaemon(server.config),
      post: async <T>(path: string) => {
        posted.push(path);
        return { interrupted: true } as T;
      },
    };
    const session = createChatSession({ daemon, sessionId: 'r1', cursor: {}, view: createChatView('r1', () => undefined), onTurnEnd: () => undefined, onError: () => undefined });
    session.start({ busy: true, closed: false });
    while (session.cellsRunning() === 0) await new Promise((r) => setTimeout(r, 10));
    expect(await session.interrupt()).toBe(1);
    expect(posted).toEqual(['/v1/sessions/r1/interrupt']);
    release();
    while (session.cellsRunning() > 0) await new Promise((r) => setTimeout(r, 10));
    expect(await session.interrupt()).toBe(0);
    expect(posted).toHaveLength(1);
    await session.close();
  });
});

describe('slash commands', () => {
  const say = (lines: string[]) => (l: string) => lines.push(l);

  it('/model and /compact post to the session; an unknown command or a refused request is said, and the chat goes on', async () => {
    const posted: Array<[string, unknown]> = [];
    const daemon: DaemonClient = {
      url: '', token: '', get: async () => { throw new Error('unused'); },
      post: async <T>(path: string, body: unknown) => {
        posted.push([path, body]);
        if (path.endsWith('/model') && (body as { model: string }).model === 'nope/x') throw new Error('unknown provider "nope"');
        return (path.endsWith('/model') ? { model: (body as { model: string }).model } : { requested: true }) as T;
      },
    };
    const lines: string[] = [];
    const c = { config: {} as never, daemon, sessionId: 'r1', say: say(lines) };
    expect(await runSlash('/model openai/gpt-4o', c)).toBe('continue');
    expect(await runSlash('/compact', c)).toBe('continue');
    expect(await runSlash('/model nope/x', c)).toBe('continue');
    expect(await runSlash('/frobnicate', c)).toBe('continue');
    expect(await runSlash('/detach', c)).toBe('detach');
    expect(await runSlash('/quit', c)).toBe('quit');
    expect(posted).toEqual([['/v1/sessions/r1/model', { model: 'openai/gpt-4o' }], ['/v1/sessions/r1/compact', {}], ['/v1/sessions/r1/model', { model: 'nope/x' }]]);
    expect(lines).toEqual([
      'model → openai/gpt-4o from the next model call',
      'compaction requested: the next model call summarises the older turns',
      '/model failed: unknown provider "nope"',
      'no command /frobnicate; /help lists them',
    ]);
  });
});

describe('recur chat arguments', () => {
  it('takes an id or a first task, not both, and not two ids', async () => {
    expect(await cliInProcess(['chat', 'r1', 'r2'])).toMatchObject({ code: 2, message: expect.stringContaining('usage: recur chat') });
    expect(await cliInProcess(['chat', 'r1', '--task', 'x'])).toMatchObject({ code: 2, message: expect.stringContaining('usage: recur chat') });
  });

  it('/tree lists each agent with its status and model, a sub-agent indented under its parent', () => {
    expect(formatTree(costTree('r1', [...root, ...kid])!)).toEqual(['r1 [completed] scripted', '  r1/helper [completed] scripted']);
  });
});
