import type { BlobRef } from '../../schemas/generated/events';
import { GATE_ENV, gateEnv, type GateLaunch, type RunGateInput } from '../run-gate';

/**
 * A research experiment (docs/research-loop.md): the task's frozen judge, run by the host on a
 * snapshot of a workspace file, instead of a command of the agent's. Its seeds are the judge's.
 */
export interface JudgeRun {
  /** The shipped task (tasks/<name>) whose judge runs. */
  task: string;
  problem: string;
  /** Seeds from the task's first: fewer than all of them is a screen, never a record. */
  trials: number;
  /** The record a candidate must beat; null for a screen. */
  against: { steps: number; mean: number; n: number } | null;
  scaleUp: boolean;
  /** The source judged: the workspace file the agent named, as it was when it asked (a blob). */
  source: BlobRef;
}

/** The part of a job (run-job.ts RunJobInput) that decides how it runs. */
export interface JobToLaunch {
  sessionId: string;
  command: string;
  judge?: JudgeRun | null;
}

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
  /** The task's frozen judge on the source snapshot: host code that reads it as text, so it runs outside the sandbox. */
  judge(run: JudgeRun): Promise<JobLaunch>;
}

/**
 * How a session's jobs run on this host. A research experiment runs the task's judge (never the
 * agent's code) on the workspace. Sandboxed, `recur_jupyter.job` execs bubblewrap with the
 * session's kernel policy (its mounts, limits, uid, no network, a cleared environment) and the
 * workspace as the working directory inside; off, bash runs in the workspace with the worker's
 * environment less its secrets (runJob filters it with gateEnv).
 */
export function jobLauncher(o: JobLauncherOptions): (job: JobToLaunch) => JobLaunch | Promise<JobLaunch> {
  const command = o.sandbox === 'off'
    ? (sessionId: string, cmd: string) => ({ argv: ['bash', '-c', cmd], cwd: o.workspaceOf(sessionId) })
    : (sessionId: string, cmd: string) => ({
      argv: [o.python, '-m', 'recur_jupyter.job', o.sandboxRoot, o.keyOf(sessionId), '--', 'bash', '-c', cmd],
      cwd: o.kernelDir,
    });
  return (input) => (input.judge ? o.judge(input.judge) : command(input.sessionId, input.command));
}

export interface GateLauncherOptions extends Omit<JobLauncherOptions, 'judge'> {
  /** Lays out the session's sandbox directories and policy, and opens its egress socket (the kernel host's prepare). */
  prepare(sessionId: string): Promise<unknown>;
  /** The worker's environment: only PATH and LANG reach the sandboxed launcher; with the sandbox off, all but its secrets reach the gate. */
  env: NodeJS.ProcessEnv;
}

/**
 * How a quality gate runs on this host. Sandboxed, as a job does (`recur_jupyter.job`), with the
 * kernel's mounts (`.git` read-only), limits, uid and cleared environment, plus GATE_ENV and a
 * forwarder to the session's egress proxy (`--egress`), so a gate that needs the network gets it by
 * the session's `--net` policy, logged and approved as the kernel's connections are. It starts in
 * `cwd` (which the launcher refuses outside the workspace), else the workspace. Off, bash runs in
 * that directory with the worker's environment less its secrets.
 */
export function gateLauncher(o: GateLauncherOptions): (input: RunGateInput) => Promise<GateLaunch> {
  const setenv = Object.entries(GATE_ENV).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
  return async (input) => {
    if (o.sandbox === 'off') {
      return { argv: ['bash', '-c', input.command], cwd: input.cwd ?? o.workspaceOf(input.sessionId), env: { ...gateEnv(o.env), ...GATE_ENV } };
    }
    await o.prepare(input.sessionId);
    return {
      argv: [o.python, '-m', 'recur_jupyter.job', '--egress', ...setenv, ...(input.cwd ? ['--cwd', input.cwd] : []),
        o.sandboxRoot, o.keyOf(input.sessionId), '--', 'bash', '-c', input.command],
      cwd: o.kernelDir,
      env: { PATH: o.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LANG: o.env.LANG ?? 'C.UTF-8' },
    };
  };
}
