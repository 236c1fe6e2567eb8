import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../config';
import type { StoredEvent } from '../../schemas';
import { isDeltaFrame, type LiveFrame, type StartSessionReply } from '../../services/daemon/api-types';
import { connectDaemon, sessionPath } from '../../services/cli/daemon-client';
import { eventFrames } from '../../services/cli/event-frames';
import { readTreeLog } from '../../services/cli/tree-log';
import { ptyCli, type PtyCli } from '../helpers/pty-cli';
import { py, scriptsDir } from '../helpers/session-harness';

const dir = scriptsDir();

function script(name: string, root: string[]): string {
  const file = join(dir, `chat-${name}.json`);
  writeFileSync(file, JSON.stringify({ agents: { root } }));
  return `scripted:${file}`;
}

const sessionIdOn = async (chat: PtyCli): Promise<string> => {
  await chat.waitFor(/chatting with \S+;/);
  return /chatting with (\S+);/.exec(chat.screen())![1];
};

describe('recur chat in a real terminal, on the real stack', () => {
  const chats: PtyCli[] = [];
  /** What the chat says when a request it made was refused. */
  const REFUSED = /not sent:|\/\w+ failed:|interrupt failed:/;
  const open = (args: string[]): PtyCli => {
    const chat = ptyCli(args, REFUSED);
    chats.push(chat);
    return chat;
  };
  afterEach(() => chats.splice(0).forEach((c) => c.kill()));

  it('shows the model text, the cell and its output, the answer; /cost and /tree print; /quit exits 0', async () => {
    const model = script('first', ['Let me compute.\n' + py('print(6 * 7)'), 'The answer is 42.']);
    const chat = open(['chat', '--task', 'compute 6*7', '--model', model]);
    const id = await sessionIdOn(chat);
    let at = await chat.waitFor('agent › Let me compute.');
    at = await chat.waitFor('┆ print(6 * 7)', at);
    at = await chat.waitFor('→ 42', at);
    at = await chat.waitFor('agent › The answer is 42.', at);
    at = await chat.waitFor('you › ', at);
    chat.type('/cost\r');
    at = await chat.waitFor(`cost of ${id}: 2 calls`, at);
    chat.type('/tree\r');
    at = await chat.waitFor(`${id} [completed] scripted`, at);
    chat.type('/quit\r');
    expect(await chat.exited).toBe(0);
  });

  it('a line typed while the root works reaches it as a user message', async () => {
    const model = script('typed', [py('m = agent_message.recv(timeout=120)\nprint("got", m["text"])'), 'Thanks for the message.']);
    const chat = open(['chat', '--task', 'wait for me', '--model', model]);
    let at = await chat.waitFor('┆ print("got", m["text"])');
    chat.type('hello there\r');
    at = await chat.waitFor('→ got hello there', at);
    at = await chat.waitFor('agent › Thanks for the message.', at);
    chat.type('/quit\r');
    expect(await chat.exited).toBe(0);
  });

  it('two quick Ctrl-Cs detach (exit 130) with the cursor saved; recur chat <id> picks up from there', async () => {
    const model = script('detach', [py('import time\ntime.sleep(15)'), 'Done sleeping.']);
    const first = open(['chat', '--task', 'sleep a while', '--model', model]);
    const id = await sessionIdOn(first);
    await first.waitFor('┆ time.sleep(15)');
    first.type('\x03');
    first.type('\x03');
    await first.waitFor(`detached; ${id} keeps running`);
    expect(await first.exited).toBe(130);
    const again = open(['chat', id]);
    const at = await again.waitFor('agent › Done sleeping.');
    expect(again.screen().slice(0, at)).not.toContain('time.sleep(15)');
    again.type('/quit\r');
    expect(await again.exited).toBe(0);
  });

  // Needs the continuing-session routes (POST …/messages to a completed root, …/model, …/interrupt).
  it('a follow-up gets a second answer; /model switches; Ctrl-C interrupts a long cell and the session goes on', async () => {
    const replies = ['First answer: 42.', 'Second answer: 4.', 'Sleeping now.\n' + py('import time\ntime.sleep(300)\nprint("woke")'), 'You stopped my sleep.'];
    const model = script('turns', replies);
    // The same replies from another file: the switch is real, and the script answers by call index either way.
    const switched = script('turns-switched', replies);
    const chat = open(['chat', '--task', 'answer', '--model', model]);
    const id = await sessionIdOn(chat);
    let at = await chat.waitFor('agent › First answer: 42.');
    at = await chat.waitFor('you › ', at);
    chat.type(`/model ${switched}\r`);
    at = await chat.waitFor(`model → ${switched}`, at);
    chat.type('and 2+2?\r');
    at = await chat.waitFor('agent › Second answer: 4.', at);
    at = await chat.waitFor('you › ', at);
    chat.type('now sleep\r');
    at = await chat.waitFor('┆ time.sleep(300)', at);
    chat.type('\x03');
    at = await chat.waitFor('interrupting the running cell', at);
    at = await chat.waitFor('→ [interrupted]', at);
    at = await chat.waitFor('agent › You stopped my sleep.', at);
    expect(chat.screen().slice(at)).not.toContain('detached');
    chat.type('/quit\r');
    expect(await chat.exited).toBe(0);
    // /quit asks for the end; the root, open after its answers, logs SessionClosed as it stops.
    let types: string[] = [];
    while (!types.includes('SessionClosed')) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      types = (await readTreeLog(connectDaemon(loadConfig()), id)).filter((e) => e.sessionId === id).map((e) => e.type);
    }
    expect(types).toEqual(expect.arrayContaining(['SessionResumed', 'ModelSwitched', 'TaskEnded']));
  });
});

describe('model text deltas on the daemon stream', () => {
  it('a ?deltas=1 stream gets the reply in pieces before its ModelCalled, and the log holds no delta', async () => {
    const daemon = connectDaemon(loadConfig());
    const model = script('deltas', [py('m = agent_message.recv(timeout=120)'), 'Got it, this reply streams in pieces.']);
    const cwd = mkdtempSync(join(tmpdir(), 'recur-deltas-'));
    const { sessionId } = await daemon.post<StartSessionReply>('/v1/sessions', { task: 'wait, then answer', model, cwd });
    const stop = new AbortController();
    const frames: LiveFrame[] = [];
    let sent = false;
    for await (const f of eventFrames(daemon, sessionId, {}, stop.signal, { deltas: true })) {
      frames.push(f);
      // The stream is subscribed by now, and the cell waits for the message: the next reply's deltas reach us.
      if (!sent && 'type' in f && f.type === 'CellRequested') {
        sent = true;
        await daemon.post(sessionPath(sessionId, 'messages'), { text: 'go' });
      }
      if (!isDeltaFrame(f) && 'type' in f && (f.type === 'SessionCompleted' || f.type === 'SessionFailed')) break;
    }
    stop.abort();
    const called = frames.findIndex((f) => !isDeltaFrame(f) && 'type' in f && f.type === 'ModelCalled' && f.event.type === 'ModelCalled' && f.event.turn === 1);
    const pieces = frames.flatMap((f, i) => (isDeltaFrame(f) && f.turn === 1 ? [{ i, text: f.text }] : []));
    expect(frames.map((f) => ('type' in f ? f.type : f.kind))).toContain('SessionCompleted');
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.map((p) => p.text).join('')).toBe('Got it, this reply streams in pieces.');
    expect(pieces.every((p) => p.i < called)).toBe(true);
    const log: StoredEvent[] = await readTreeLog(daemon, sessionId);
    expect(log.some((e) => JSON.stringify(e).includes('"kind":"delta"'))).toBe(false);
  });
});
