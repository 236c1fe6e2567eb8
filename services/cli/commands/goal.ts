import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { GoalView } from '../../../workflows/long-run-messages';
import type { CommandContext } from '../command-context';
import { connectDaemon, sessionPath, type DaemonClient } from '../daemon-client';

const ACTIONS = ['show', 'pause', 'resume', 'clear', 'complete'];

/** An operator's hand on a session's goal: unlike the agent, an operator may end an open-ended one. */
export async function goal(ctx: CommandContext): Promise<number> {
  const [sessionId, action = 'show', evidence, ...extra] = ctx.args;
  if (!sessionId || !ACTIONS.includes(action) || extra.length > 0 || (evidence !== undefined && action !== 'complete')) {
    throw new ExitError(2, 'usage: recur goal <session-id> [show|pause|resume|clear|complete ["evidence"]] [--json]');
  }
  const g = await goalAction(connectDaemon(loadConfig()), sessionId, action, evidence);
  ctx.out(ctx.flags.json ? JSON.stringify({ sessionId, goal: g }) : formatGoal(sessionId, g));
  return 0;
}

/** Runs one of ACTIONS on the session's goal (`show` reads it) and returns the goal as it now is. */
export async function goalAction(daemon: DaemonClient, sessionId: string, action: string, evidence?: string): Promise<GoalView | null> {
  if (!ACTIONS.includes(action)) throw new ExitError(2, `no goal action "${action}"; one of ${ACTIONS.join(', ')}`);
  const body = { action: action === 'show' ? 'get' : action, ...(evidence !== undefined && { evidence }) };
  return (await daemon.post<{ goal: GoalView | null }>(sessionPath(sessionId, 'goal'), body)).goal;
}

export function formatGoal(sessionId: string, g: GoalView | null): string {
  if (!g) return `${sessionId} has no goal`;
  return `${g.status}${g.openEnded ? ' (open-ended)' : ''}: ${g.objective}\n  tokens ${g.tokensUsed}${g.tokenBudget !== null ? ` / ${g.tokenBudget}` : ''}, cost $${g.costUsd.toFixed(4)}${g.costBudgetUsd !== null ? ` / $${g.costBudgetUsd}` : ''}, ${g.secondsUsed}s${g.secondsBudget !== null ? ` / ${g.secondsBudget}s` : ''}`;
}
