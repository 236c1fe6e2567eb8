import { spawn } from 'node:child_process';

export interface RunGateInput {
  command: string;
  timeoutSeconds: number;
  cwd: string | null;
}

export interface RunGateResult {
  passed: boolean;
  exitCode: number | null;
  /** stdout and stderr together, the last GATE_OUTPUT_CHARS of them. */
  output: string;
  durationMs: number;
}

/** A failed gate's output goes back to the model; its tail says why it failed. */
export const GATE_OUTPUT_CHARS = 6000;
/** Variables that look like credentials never reach a gate: it runs commands a user wrote, on the worker. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL/i;

/** The environment a gate runs with: the worker's, minus anything that looks like a secret. */
export function gateEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !SECRET_NAME.test(k)));
}

/** Autonomous mode's quality gates: one shell command per call, bounded in time and output. */
export function createGateActivities(deps: { env: NodeJS.ProcessEnv }) {
  return {
    runGate(input: RunGateInput): Promise<RunGateResult> {
      const started = Date.now();
      return new Promise((resolve) => {
        let output = '';
        const keep = (chunk: Buffer) => {
          output = (output + chunk.toString('utf8')).slice(-GATE_OUTPUT_CHARS);
        };
        const child = spawn('bash', ['-c', input.command], {
          cwd: input.cwd ?? undefined, env: gateEnv(deps.env), stdio: ['ignore', 'pipe', 'pipe'], detached: true,
        });
        child.stdout.on('data', keep);
        child.stderr.on('data', keep);
        // The whole process group goes, so a gate's own children cannot outlive its timeout.
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
    },
  };
}
