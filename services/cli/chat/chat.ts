import { createInterface, type Interface } from 'node:readline';
import { stripControls } from '../../../activities/control-text';
import { loadConfig, type RecurConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { SessionDetail } from '../../daemon/api-types';
import type { CommandContext } from '../command-context';
import { clearCursor, loadCursor, saveCursor } from '../cursor-file';
import { connectDaemon, sessionPath, type DaemonClient } from '../daemon-client';
import { killedText, killSession } from '../commands/kill';
import { startRootSession } from '../commands/run';
import { createChatSession, type ChatSession } from './chat-session';
import { createChatView } from './chat-view';
import { runSlash, type SlashOutcome } from './slash-commands';

/** A second Ctrl-C this soon after the first detaches, even while a cell runs. */
const DOUBLE_PRESS_MS = 2000;
const PROMPT = 'you › ';
/** A root in one of these phases waits for the user: the chat shows its prompt at once. */
const IDLE_PHASES = new Set(['idle', 'unloaded', 'done']);

/** The terminal the chat owns: raw writes (streamed text has no line ends), each made terminal-safe. */
const write = (text: string): void => void process.stdout.write(stripControls(text));

function ask(rl: Interface, question: string): Promise<string | null> {
  return new Promise((resolve) => {
    const onClose = (): void => resolve(null);
    rl.once('close', onClose);
    rl.question(question, (answer) => {
      rl.off('close', onClose);
      resolve(answer);
    });
  });
}

/**
 * `recur chat [<id>]`: a conversation with a session tree in the terminal. Without an id it
 * starts a root session on the first task (`--task`, else asked for); with one it attaches from
 * the saved cursor. Exit codes: 0 /quit, /detach or end of input; 130 Ctrl-C detach; 1 the root failed.
 */
export async function chat(ctx: CommandContext): Promise<number> {
  const [given, ...extra] = ctx.args;
  if (extra.length > 0 || (given && ctx.flags.task)) throw new ExitError(2, 'usage: recur chat [<session-id>] | recur chat [--task "<text>"] [--model …]');
  const config = loadConfig();
  const daemon = connectDaemon(config);
  const rl = createInterface({ input: process.stdin, output: process.stdout, prompt: PROMPT });
  try {
    let sessionId = given;
    let detail: SessionDetail | undefined;
    if (sessionId) detail = await daemon.get<SessionDetail>(sessionPath(sessionId));
    else {
      const task = typeof ctx.flags.task === 'string' ? ctx.flags.task : await ask(rl, 'task › ');
      if (!task?.trim()) return 0;
      sessionId = await startRootSession(ctx, task, config, daemon);
    }
    ctx.err(`chatting with ${sessionId}; /help lists the commands`);
    return await converse({ config, daemon, sessionId, rl, detail });
  } finally {
    rl.close();
  }
}

interface ConverseOptions {
  config: RecurConfig;
  daemon: DaemonClient;
  sessionId: string;
  rl: Interface;
  /** Set when attaching; a new session has none. */
  detail?: SessionDetail;
}

/** The prompt loop over one session: follow-ups, slash commands, Ctrl-C. Resolves with the exit code. */
function converse(o: ConverseOptions): Promise<number> {
  const { rl, sessionId } = o;
  const view = createChatView(sessionId, write);
  const say = (line: string): void => {
    view.endLine();
    write(`${line}\n`);
  };
  return new Promise<number>((resolve) => {
    let done = false;
    let quitting = false;
    let lastCtrlC = 0;
    const session: ChatSession = createChatSession({
      daemon: o.daemon, sessionId, cursor: o.detail ? loadCursor(o.config, sessionId) : {}, view,
      onTurnEnd: (ended) => {
        if (ended) void finish(quitting ? 0 : 1, 'end');
        else rl.prompt();
      },
      onError: (message) => {
        say(`(stream: ${message}; the next message reconnects)`);
        rl.prompt();
      },
    });

    async function finish(code: number, how: 'detach' | 'end'): Promise<void> {
      if (done) return;
      done = true;
      await session.close();
      if (how === 'detach') {
        saveCursor(o.config, sessionId, session.cursor);
        say(`detached; ${sessionId} keeps running. Back with: recur chat ${sessionId}`);
      } else clearCursor(o.config, sessionId);
      process.off('SIGINT', onCtrlC);
      resolve(code);
    }

    async function onSlash(outcome: SlashOutcome): Promise<void> {
      if (outcome === 'detach') return finish(0, 'detach');
      if (outcome === 'quit') {
        quitting = true;
        // A session that already ended has nothing left to kill: leaving is still what was asked.
        await killSession(o.daemon, sessionId).then(() => say(killedText(sessionId)), (err: unknown) => say(`not killed: ${(err as Error).message}`));
        return finish(0, 'end');
      }
      if (!session.busy) rl.prompt();
    }

    async function onLine(line: string): Promise<void> {
      const text = line.trim();
      if (!text) return void (session.busy || rl.prompt());
      if (text.startsWith('/')) return onSlash(await runSlash(text, { config: o.config, daemon: o.daemon, sessionId, say }));
      try {
        await session.send(text);
      } catch (err) {
        say(`not sent: ${(err as Error).message}`);
        rl.prompt();
      }
    }

    function onCtrlC(): void {
      const now = Date.now();
      const again = now - lastCtrlC < DOUBLE_PRESS_MS;
      lastCtrlC = now;
      if (again || session.cellsRunning() === 0) return void finish(130, 'detach');
      say('interrupting the running cell (Ctrl-C again to detach)');
      session.interrupt().then(
        (n) => n === 0 && say('no cell was running'),
        (err: unknown) => say(`interrupt failed: ${(err as Error).message}`),
      );
    }

    rl.on('line', (line) => void onLine(line).catch((err: unknown) => say(`error: ${(err as Error).message}`)));
    rl.on('SIGINT', onCtrlC);
    process.on('SIGINT', onCtrlC); // a signal from outside, or stdin that is not a terminal
    rl.on('close', () => void finish(0, 'detach'));
    if (!o.detail) session.start({ busy: true, closed: false });
    else {
      const phase = o.detail.live?.phase ?? 'done';
      session.start({ busy: o.detail.status === 'running' && !IDLE_PHASES.has(phase), closed: o.detail.status !== 'running', cellRunning: phase === 'cell' });
      if (!session.busy) rl.prompt();
    }
  });
}
