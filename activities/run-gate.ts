import { spawn } from 'node:child_process';

export interface RunGateInput {
  /** The session whose sandbox the gate runs in: its workspace, mounts, limits, uid and network policy. */
  sessionId: string;
  command: string;
  timeoutSeconds: number;
  /** Where the gate starts: the workspace or a directory inside it; null: the workspace. */
  cwd: string | null;
}

export interface RunGateResult {
  passed: boolean;
  exitCode: number | null;
  /** stdout and stderr together, the last GATE_OUTPUT_CHARS of them. */
  output: string;
  durationMs: number;
}

/** How one gate command starts: the program, its arguments, the directory and the environment of that process. */
export interface GateLaunch {
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** A failed gate's output goes back to the model; its tail says why it failed. */
export const GATE_OUTPUT_CHARS = 6000;
/** Variables that look like credentials never reach a command the agent could have written. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL/i;

/**
 * What a gate gets beside the sandbox's own environment (docs/sandbox.md): a gate runs unattended,
 * so test runners should neither watch nor prompt, as under any CI.
 */
export const GATE_ENV: Readonly<Record<string, string>> = { CI: 'true', RECUR_GATE: '1' };

/** The worker's environment less anything that looks like a secret: what a command runs with when the sandbox is off. */
export function gateEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !SECRET_NAME.test(k)));
}

/**
 * Autonomous mode's quality gates: one shell command per call, bounded in time and output, started
 * as `launch` says (activities/jobs/job-launch.ts `gateLauncher`: in the session's sandbox unless
 * the sandbox is off). The gate's tests are the agent's to edit, so a gate runs the agent's code.
 */
export function createGateActivities(deps: { launch(input: RunGateInput): Promise<GateLaunch>; heartbeat?: () => void }) {
  return {
    async runGate(input: RunGateInput): Promise<RunGateResult> {
      const started = Date.now();
      let launch: GateLaunch;
      try {
        launch = await deps.launch(input);
      } catch (e) {
        return { passed: false, exitCode: null, output: `[gate could not start: ${(e as Error).message}]`, durationMs: Date.now() - started };
      }
      const beat = deps.heartbeat ? setInterval(deps.heartbeat, 3_000) : undefined;
      try {
        return await new Promise((resolve) => {
          let output = '';
          const keep = (chunk: Buffer) => {
            output = (output + chunk.toString('utf8')).slice(-GATE_OUTPUT_CHARS);
          };
          const [program, ...args] = launch.argv;
          const child = spawn(program, args, { cwd: launch.cwd, env: launch.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
          child.stdout.on('data', keep);
          child.stderr.on('data', keep);
          // The whole process group goes (sandboxed: bubblewrap, and with it the gate's namespace), so nothing outlives the timeout.
          const timer = setTimeout(() => {
            output += `\n[gate killed after ${input.timeoutSeconds}s]`;
            try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
          }, input.timeoutSeconds * 1000);
          const done = (exitCode: number | null) => {
            clearTimeout(timer);
            resolve({ passed: exitCode === 0, exitCode, output, durationMs: Date.now() - started });
          };
          child.on('error', (e) => { output += `\n[gate could not start: ${e.message}]`; done(null); });
          child.on('close', (code) => done(code));
        });
      } finally {
        clearInterval(beat);
      }
    },
  };
}
