import { existsSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ExitError, RecurError } from '../../../errors';
import { initWorkspace } from '../../research/init-workspace';
import { runJudge, type JudgeVerdict } from '../../research/run-judge';
import { listTasks, readTask, type ResearchTask } from '../../research/tasks';
import type { CommandContext } from '../command-context';

const USAGE = 'usage: recur research init DIR --task NAME [--knowledge weights-only|archive|full] [--json] | recur research judge DIR [--task NAME] [--problem small|large] [--json]';
const DEFAULT_TASK = 'nqm-speedrun';

/** Exit codes of `recur research` (docs/research-task.md). */
const EXIT = { accepted: 0, rejected: 1, usage: 2, judgeFailed: 3 } as const;

/**
 * `recur research`: shipped research tasks without the stack. `init` writes a workspace for a
 * task; `judge` runs the task's frozen judge on a workspace as it stands and prints its verdict.
 */
export async function research(ctx: CommandContext): Promise<number> {
  const [sub, dir, ...extra] = ctx.args;
  if (!dir || extra.length > 0) throw new ExitError(EXIT.usage, USAGE);
  const foreign = sub === 'init' ? 'problem' : 'knowledge';
  if (ctx.flags[foreign] !== undefined) throw new ExitError(EXIT.usage, `--${foreign} is not a flag of research ${sub}\n${USAGE}`);
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
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ExitError(EXIT.usage, `${dir} is not a directory`);
  let verdict: JudgeVerdict;
  try {
    verdict = await runJudge({ task, dir, problem });
  } catch (e) {
    if (e instanceof RecurError) throw new ExitError(EXIT.judgeFailed, e.message);
    throw e;
  }
  if (ctx.flags.json) ctx.out(JSON.stringify({ task: task.manifest.name, workspace: dir, ...verdict }));
  else {
    ctx.out(`${verdict.accepted ? 'accepted' : 'rejected'}: ${verdict.reason}`);
    const mean = verdict.mean === null ? 'none' : verdict.mean.toFixed(5);
    ctx.out(`steps ${verdict.steps ?? 'none'}, mean ${mean} over ${verdict.n} seeds, bar ${verdict.bar.toFixed(5)} (${verdict.problem} problem)`);
  }
  return verdict.accepted ? EXIT.accepted : EXIT.rejected;
}
