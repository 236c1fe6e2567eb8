import { ExitError } from '../../errors';
import { runCli } from '../../services/cli/cli';

export interface CliRun {
  /** The exit code, an ExitError's included. */
  code: number;
  /** The ExitError's message ('' when the command returned): what main.ts would print. */
  message: string;
  out: string[];
  err: string[];
}

/**
 * Runs a CLI command in this process, as main.ts would, with `env` set around it (a fresh
 * RECUR_HOME, another topic, ports nobody listens on) and restored after.
 */
export async function cliInProcess(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const r = await runCli(args, { out: (l) => out.push(l), err: (l) => err.push(l) }).catch((e: unknown) => {
      if (e instanceof ExitError) return e;
      throw e;
    });
    return r instanceof ExitError ? { code: r.code, message: r.message, out, err } : { code: r, message: '', out, err };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
