/** What runs one command of a job: the program and its arguments, and the directory it starts in. */
export interface JobLaunch {
  argv: string[];
  cwd: string;
}

export interface JobLauncherOptions {
  sandbox: 'on' | 'off';
  /** The venv's interpreter, where recur_jupyter's dependencies (jupyter_client) are installed. */
  python: string;
  /** `<repo>/kernel`, which holds recur_jupyter: the sandboxed launcher starts there, so `python -m` finds it. */
  kernelDir: string;
  /** Where the worker writes each session's policy.json (services/sandbox/kernel-host.ts `sandboxRoot`). */
  sandboxRoot: string;
  keyOf(sessionId: string): string;
  workspaceOf(sessionId: string): string;
}

/**
 * How a session's jobs run on this host. Sandboxed, `recur_jupyter.job` execs bubblewrap with the
 * session's kernel policy (its mounts, limits, uid, no network, a cleared environment) and the
 * workspace as the working directory inside; off, bash runs in the workspace with the worker's
 * environment less its secrets (runJob filters it with gateEnv).
 */
export function jobLauncher(o: JobLauncherOptions): (sessionId: string, command: string) => JobLaunch {
  if (o.sandbox === 'off') return (sessionId, command) => ({ argv: ['bash', '-c', command], cwd: o.workspaceOf(sessionId) });
  return (sessionId, command) => ({
    argv: [o.python, '-m', 'recur_jupyter.job', o.sandboxRoot, o.keyOf(sessionId), '--', 'bash', '-c', command],
    cwd: o.kernelDir,
  });
}
