import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../services/home/repo-root';

const CLI = join(repoRoot(), 'dist', 'services', 'cli', 'main.js');

/**
 * Runs the built CLI against the test stack's daemon and worker, as a user would, from a fresh
 * directory: `recur run` binds the one it is called from, never the checkout. CI mode only when
 * asked (`--ci`, or `env: { CI: 'true' }`): the suite's own CI variables are gone (without-ci-env.ts).
 */
export function recur(args: string[], opts: { onLine?: (line: string, send: (sig: NodeJS.Signals) => void) => void; env?: Record<string, string> } = {}) {
  return new Promise<{ code: number | null; lines: string[]; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...opts.env }, cwd: mkdtempSync(join(tmpdir(), 'recur-cli-')) });
    const lines: string[] = [];
    let stderr = '';
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        opts.onLine?.(line, (sig) => child.kill(sig));
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, lines, stderr }));
  });
}
