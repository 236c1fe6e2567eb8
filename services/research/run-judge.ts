import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { RecurError } from '../../errors';
import type { JudgeOutput } from '../../workflows/research/judge-output';
import type { ResearchTask } from './tasks';

/** The current record a candidate is judged against: its steps, and its mean over n seeds. */
export interface JudgedRecord {
  steps: number;
  mean: number;
  n: number;
}

/** What to judge a workspace for: a screen of `trials` seeds, or a record candidate. */
export interface JudgeArgs {
  problem?: string;
  /** Seeds 0xC0FFEE+0..trials-1; below 8 the verdict is a screen (default 8). */
  trials?: number;
  /** The current record; a candidate must then have fewer steps and pass the pairwise rule. */
  against?: JudgedRecord | null;
  scaleUp?: boolean;
  /** Exit 0 whenever a verdict was printed; the verdict's `accepted` says the rest. */
  exitZero?: boolean;
  /** Print the run time the judged runs stand for at this many seconds a step and seed (the virtual executor's charge). */
  simSecondsPerStep?: number;
}

export interface JudgeOptions extends JudgeArgs {
  task: ResearchTask;
  dir: string;
  /** The interpreter; python3 on PATH unless given. */
  python?: string;
}

// Far above a judged run's cost (a --scale-up judge bisects on the large problem: about 10 s of CPU); what it stops is a judge stuck on a workspace.
const JUDGE_TIMEOUT_MS = 300_000;

/**
 * The judge's command line after the interpreter, so every caller runs the same judge the same
 * way: the task's own verify.py (never the workspace's), under -I, which keeps the workspace
 * (and PYTHON* variables) off its import path, and -B, which writes nothing beside it. The
 * verdict is one line of JSON, the last line of the output.
 */
export function judgeArgv(task: ResearchTask, dir: string, o: JudgeArgs): string[] {
  const args = ['-I', '-B', join(task.dir, task.manifest.judge), '--workspace', dir];
  if (o.problem !== undefined) args.push('--problem', o.problem);
  if (o.trials !== undefined) args.push('--trials', String(o.trials));
  if (o.against) args.push('--against', JSON.stringify({ steps: o.against.steps, mean: o.against.mean, n: o.against.n }));
  if (o.scaleUp) args.push('--scale-up');
  if (o.exitZero) args.push('--exit-zero');
  if (o.simSecondsPerStep !== undefined) args.push('--sim-seconds-per-step', String(o.simSecondsPerStep));
  return [...args, '--json'];
}

/**
 * Runs the task's shipped judge on a workspace. Exit 0 and 1 are verdicts; anything else
 * (2 is the judge refusing its arguments) is a judge failure.
 */
export function runJudge(o: JudgeOptions): Promise<JudgeOutput> {
  return new Promise((resolve, reject) => {
    execFile(o.python ?? 'python3', judgeArgv(o.task, o.dir, o), { cwd: o.task.dir, timeout: JUDGE_TIMEOUT_MS }, (err, stdout, stderr) => {
      const code: unknown = err ? (err as { code?: unknown }).code : 0;
      if (code !== 0 && code !== 1) {
        reject(new RecurError(`the ${o.task.manifest.name} judge failed: ${(stderr || (err as Error).message).trim()}`));
        return;
      }
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as JudgeOutput);
      } catch {
        reject(new RecurError(`the ${o.task.manifest.name} judge printed no verdict: ${stdout.slice(0, 200)}${stderr.trim()}`));
      }
    });
  });
}
