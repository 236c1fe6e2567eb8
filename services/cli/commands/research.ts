import { existsSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ExitError, RecurError } from '../../../errors';
import { initWorkspace } from '../../research/init-workspace';
import type { JudgeOutput } from '../../../workflows/research/judge-output';
import { runJudge } from '../../research/run-judge';
import { listTasks, readTask, type ResearchTask } from '../../research/tasks';
import type { CommandContext } from '../command-context';
import { ledger } from './research-ledger';
import { report } from './research-report';

const USAGE = 'usage: recur research init DIR --task NAME [--knowledge weights-only|archive|full] [--json] | recur research judge DIR [--task NAME] [--problem small|large] [--trials N] [--scale-up] [--json] | recur research ledger SESSION-ID [--json] | recur research report SESSION-ID [--out DIR|-] [--json]';
// The judge's record is 8 seeds; fewer is a screen.
const RECORD_TRIALS = 8;
const DEFAULT_TASK = 'nqm-speedrun';

/** Exit codes of `recur research` (docs/research-task.md). */
const EXIT = { accepted: 0, rejected: 1, usage: 2, judgeFailed: 3 } as const;

/**
 * `recur research`: shipped research tasks. `init` writes a workspace for a task and `judge` runs
 * its frozen judge on one as it stands, both without the stack; `ledger` and `report` read a
 * research session from the event log.
 */
export async function research(ctx: CommandContext): Promise<number> {
  const [sub, dir, ...extra] = ctx.args;
  if (!dir || extra.length > 0) throw new ExitError(EXIT.usage, USAGE);
  if (sub !== 'report' && ctx.flags.out !== undefined) throw new ExitError(EXIT.usage, `--out is a flag of research report only\n${USAGE}`);
  if (sub === 'ledger') return ledger(ctx, dir);
  if (sub === 'report') return report(ctx, dir);
  const foreign = (sub === 'init' ? ['problem', 'trials', 'scale-up'] : ['knowledge']).find((f) => ctx.flags[f] !== undefined);
  if (foreign) throw new ExitError(EXIT.usage, `--${foreign} is not a flag of research ${sub}\n${USAGE}`);
  if (sub === 'init') return init(ctx, resolve(dir));
  if (sub === 'judge') return judge(ctx, resolve(dir));
  throw new ExitError(EXIT.usage, USAGE);
}

function taskNamed(name: unknown): ResearchTask {
  const task = typeof name === 'string' ? readTask(name) : undefined;
  if (!task) throw new ExitError(EXIT.usage, `unknown task ${JSON.stringify(name)}; shipped tasks: ${listTasks().join(', ')}`);
  return task;
}

function init(ctx: CommandContext, dir: string): number {
  if (ctx.flags.task === undefined) throw new ExitError(EXIT.usage, `init needs --task NAME\n${USAGE}`);
  const task = taskNamed(ctx.flags.task);
  const knowledge = (ctx.flags.knowledge as string | undefined) ?? 'weights-only';
  const tiers = Object.keys(task.manifest.knowledge);
  if (!tiers.includes(knowledge)) throw new ExitError(EXIT.usage, `unknown knowledge tier "${knowledge}"; ${task.manifest.name} has ${tiers.join(', ')}`);
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
    throw new ExitError(EXIT.usage, `${dir} is not an empty directory; init writes a new workspace and never into existing work`);
  }
  const r = initWorkspace({ task, dir, knowledge });
  if (ctx.flags.json) ctx.out(JSON.stringify({ task: task.manifest.name, dir, knowledge, ...r }));
  else {
    ctx.out(`${dir}: ${task.manifest.name} (${task.manifest.summary})`);
    ctx.out(`knowledge ${knowledge}: ${r.papers} paper(s); ${r.records} record(s) released; ${r.files.length} files`);
    ctx.out(`judge it with: recur research judge ${dir}`);
  }
  return 0;
}

async function judge(ctx: CommandContext, dir: string): Promise<number> {
  const task = taskNamed(ctx.flags.task ?? DEFAULT_TASK);
  const problem = (ctx.flags.problem as string | undefined) ?? 'small';
  if (problem !== 'small' && problem !== 'large') throw new ExitError(EXIT.usage, `--problem must be small or large\n${USAGE}`);
  const trials = ctx.flags.trials === undefined ? RECORD_TRIALS : Number(ctx.flags.trials);
  if (!Number.isInteger(trials) || trials < 1 || trials > RECORD_TRIALS) {
    throw new ExitError(EXIT.usage, `--trials must be an integer from 1 to ${RECORD_TRIALS}, got "${String(ctx.flags.trials)}"\n${USAGE}`);
  }
  const scaleUp = ctx.flags['scale-up'] === true;
  if (scaleUp && (trials < RECORD_TRIALS || problem !== 'small')) {
    throw new ExitError(EXIT.usage, `--scale-up judges a record candidate: ${RECORD_TRIALS} trials on the small problem\n${USAGE}`);
  }
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ExitError(EXIT.usage, `${dir} is not a directory`);
  let verdict: JudgeOutput;
  try {
    verdict = await runJudge({ task, dir, problem, trials, scaleUp });
  } catch (e) {
    if (e instanceof RecurError) throw new ExitError(EXIT.judgeFailed, e.message);
    throw e;
  }
  if (ctx.flags.json) ctx.out(JSON.stringify({ task: task.manifest.name, workspace: dir, ...verdict }));
  else for (const line of humanVerdict(verdict, trials)) ctx.out(line);
  return verdict.accepted ? EXIT.accepted : EXIT.rejected;
}

function humanVerdict(v: JudgeOutput, trials: number): string[] {
  const word = trials < RECORD_TRIALS ? (v.promising ? 'promising' : 'not promising') : v.accepted ? 'accepted' : 'rejected';
  const mean = v.mean === null ? 'none' : v.mean.toFixed(5);
  const lines = [`${word}: ${v.reason}`, `steps ${v.steps ?? 'none'}, mean ${mean} over ${v.n} seeds, bar ${v.bar.toFixed(5)} (${v.problem} problem)`];
  if (v.scale_up) {
    const s = v.scale_up;
    const large = s.ratio_large === null ? 'never clears the bar' : `T* ${s.large_steps} (${s.ratio_large.toFixed(4)} of the baseline's ${s.baseline_large_steps})`;
    lines.push(`scale-up ${s.passed ? 'passed' : 'failed'}: large ${large}; small ${v.steps} (${s.ratio_small.toFixed(4)} of the baseline's ${s.baseline_small_steps})`);
  }
  return lines;
}
