import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { GoalView } from '../../../workflows/long-run-messages';
import type { CommandContext } from '../cli';
import { connectDaemon, sessionPath } from '../daemon-client';

const ACTIONS = ['show', 'pause', 'resume', 'clear', 'complete'];

/** An operator's hand on a session's goal: unlike the agent, an operator may end an open-ended one. */
export async function goal(ctx: CommandContext): Promise<number> {
  const [sessionId, action = 'show', evidence, ...extra] = ctx.args;
  if (!sessionId || !ACTIONS.includes(action) || extra.length > 0 || (evidence !== undefined && action !== 'complete')) {
    throw new ExitError(2, 'usage: recur goal <session-id> [show|pause|resume|clear|complete ["evidence"]] [--json]');
  }
  const body = { action: action === 'show' ? 'get' : action, ...(evidence !== undefined && { evidence }) };
  const { goal: g } = await connectDaemon(loadConfig()).post<{ goal: GoalView | null }>(sessionPath(sessionId, 'goal'), body);
  if (ctx.flags.json) ctx.out(JSON.stringify({ sessionId, goal: g }));
  else if (!g) ctx.out(`${sessionId} has no goal`);
  else ctx.out(`${g.status}${g.openEnded ? ' (open-ended)' : ''}: ${g.objective}\n  tokens ${g.tokensUsed}${g.tokenBudget !== null ? ` / ${g.tokenBudget}` : ''}, cost $${g.costUsd.toFixed(4)}${g.costBudgetUsd !== null ? ` / $${g.costBudgetUsd}` : ''}, ${g.secondsUsed}s${g.secondsBudget !== null ? ` / ${g.secondsBudget}s` : ''}`);
  return 0;
}
