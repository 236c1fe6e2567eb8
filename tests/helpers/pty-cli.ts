import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripControls } from '../../activities/control-text';
import { repoRoot } from '../../services/home/repo-root';

const CLI = join(repoRoot(), 'dist', 'services', 'cli', 'main.js');
const RELAY = join(repoRoot(), 'tests', 'helpers', 'pty-relay.py');

export interface PtyCli {
  /** Everything the terminal showed so far, escape sequences and carriage returns removed. */
  screen(): string;
  /** Resolves once the screen shows `text` after position `from` (default: anywhere); returns where it ends. */
  waitFor(text: string | RegExp, from?: number): Promise<number>;
  /** Types into the terminal: `\r` is Enter, `\x03` Ctrl-C. */
  type(keys: string): void;
  exited: Promise<number | null>;
  /** Ends the relay and the CLI under it (a test that failed midway leaves none behind). */
  kill(): void;
}

/**
 * The built CLI in a real pseudo-terminal (Python's pty module), from a fresh directory. A wait
 * fails at once when the screen shows `failOn` past its start, naming what it showed.
 */
/** Longest one wait for the screen lasts, under jest's 120 s a test. */
const WAIT_MS = 100_000;

export function ptyCli(args: string[], failOn?: RegExp): PtyCli {
  const child = spawn('python3', [RELAY, process.execPath, CLI, ...args], {
    cwd: mkdtempSync(join(tmpdir(), 'recur-chat-')), env: { ...process.env, TERM: 'dumb', COLUMNS: '200' },
  });
  let raw = '';
  const waiters = new Set<() => void>();
  const screen = (): string => stripControls(raw).replace(/\r\n/g, '\n').replace(/\r/g, '');
  child.stdout.on('data', (d: Buffer) => {
    raw += d.toString();
    for (const w of waiters) w();
  });
  child.stderr.on('data', (d: Buffer) => process.stderr.write(d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    screen,
    waitFor(text, from = 0) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const rest = screen().slice(from);
          if (failOn?.test(rest)) {
            waiters.delete(check);
            return reject(new Error(`the screen shows ${String(failOn)} while waiting for ${String(text)}:\n${rest}`));
          }
          const at = typeof text === 'string' ? rest.indexOf(text) : rest.search(text);
          if (at < 0) return;
          waiters.delete(check);
          resolve(from + at + (typeof text === 'string' ? text.length : (rest.match(text)?.[0].length ?? 0)));
        };
        waiters.add(check);
        void exited.then(() => {
          if (waiters.delete(check)) reject(new Error(`exited before showing ${String(text)}; screen:\n${screen()}`));
        });
        // Inside jest's own limit, so a wait that never ends says what it waited for and what the screen showed.
        setTimeout(() => {
          if (waiters.delete(check)) reject(new Error(`no ${String(text)} after ${WAIT_MS / 1000} s; screen:\n${screen()}`));
        }, WAIT_MS).unref();
        check();
      });
    },
    type: (keys) => void child.stdin.write(keys),
    exited,
    kill: () => void (child.exitCode === null && child.kill('SIGTERM')),
  };
}
