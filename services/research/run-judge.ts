import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { RecurError } from '../../errors';
import type { ResearchTask } from './tasks';

/** What the frozen judge decides about a workspace as it stands (its verify.py --json). */
export interface JudgeVerdict {
  accepted: boolean;
  clears_bar: boolean;
  steps: number | null;
  /** null when the run diverged or was never run (a rejected harness or CONFIG). */
  mean: number | null;
  reason: string;
  n: number;
  seeds: number[];
  values: (number | null)[];
  bar: number;
  config_hash: string | null;
  frozen_hash: string | null;
  problem: string;
}

export interface JudgeOptions {
  task: ResearchTask;
  dir: string;
  problem: string;
  /** The interpreter; python3 on PATH unless given. */
  python?: string;
}

// Far above a judged run's cost (under a second of CPU at T ~ 4500); what it stops is a judge stuck on a workspace.
const JUDGE_TIMEOUT_MS = 300_000;

/**
 * Runs the task's shipped judge on a workspace. The judge reads only the workspace's train.py,
 * as text; -I keeps the workspace (and PYTHON* variables) off its import path, so nothing the
 * agent wrote can run inside it. Exit 0 and 1 are verdicts; anything else is a judge failure.
 */
export function runJudge(o: JudgeOptions): Promise<JudgeVerdict> {
  const script = join(o.task.dir, o.task.manifest.judge);
  const args = ['-I', '-B', script, '--workspace', o.dir, '--problem', o.problem, '--json'];
  return new Promise((resolve, reject) => {
    execFile(o.python ?? 'python3', args, { cwd: o.task.dir, timeout: JUDGE_TIMEOUT_MS }, (err, stdout, stderr) => {
      const code: unknown = err ? (err as { code?: unknown }).code : 0;
      if (code !== 0 && code !== 1) {
        reject(new RecurError(`the ${o.task.manifest.name} judge failed: ${(stderr || (err as Error).message).trim()}`));
        return;
      }
      try {
        resolve(JSON.parse(stdout) as JudgeVerdict);
      } catch {
        reject(new RecurError(`the ${o.task.manifest.name} judge printed no verdict: ${stdout.slice(0, 200)}${stderr.trim()}`));
      }
    });
  });
}
