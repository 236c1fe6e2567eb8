import { loadConfig, type RecurConfig } from '../../../config';
import { ExitError } from '../../../errors';
import { kafkaClient } from '../../../config/connections';
import { costTree, type CostNode, type Spent } from '../../projector/cost-tree';
import { readLogInOrder } from '../../projector/read-log-in-order';
import type { CommandContext } from '../command-context';
import { shortSessionId } from '../format-event';

const USAGE = 'usage: recur cost <session-id> [--json]';

const estimated = (s: Spent) => (s.estimatedCalls === 0 ? '' : ` (${s.estimatedCalls === s.calls ? 'all' : s.estimatedCalls} estimated)`);
const spent = (s: Spent) => `${s.calls} call${s.calls === 1 ? '' : 's'}, ${s.tokensIn} in + ${s.tokensOut} out tok${estimated(s)}, $${s.costUsd.toFixed(4)}`;

function budget(b: CostNode['budget']): string {
  if (!b) return '';
  const parts = [b.tokens !== null && `${b.tokens} tok`, b.costUsd !== null && `$${b.costUsd}`, b.seconds !== null && `${b.seconds}s`, b.turns !== null && `${b.turns} calls`];
  return ` (budget ${parts.filter(Boolean).join(', ')})`;
}

/** One line per agent, indented by depth: its own spend and time, and its subtree's where it has children. */
export function formatCostTree(root: CostNode): string[] {
  const lines = [`cost of ${root.sessionId}: ${spent(root.total)}, ${(root.wallMs / 1000).toFixed(1)}s${budget(root.budget)}`];
  const walk = (n: CostNode, depth: number) => {
    const tree = n.children.length > 0 ? `; with sub-agents ${spent(n.total)}` : '';
    lines.push(`${'  '.repeat(depth)}${shortSessionId(n.sessionId)} [${n.status}] ${spent(n.own)}, ${(n.wallMs / 1000).toFixed(1)}s (model ${(n.own.modelMs / 1000).toFixed(1)}s)${tree}`);
    for (const c of n.children) walk(c, depth + 1);
  };
  walk(root, 1);
  return lines;
}

/** The tree's cost from its log in Kafka; ExitError when nothing of it is logged. */
export async function readCostTree(config: RecurConfig, sessionId: string): Promise<CostNode> {
  const kafka = kafkaClient(config, 'reader', `${config.kafka.clientId}-cost`);
  const log = await readLogInOrder({ kafka, topic: config.kafka.topic, sessionId });
  const tree = costTree(sessionId, [...log.sessions.values()].flat());
  if (!tree) throw new ExitError(1, `no session ${sessionId} logged on ${config.kafka.topic}`);
  return tree;
}

/** `recur cost <id>`: per-agent tokens, cost and time of a session tree, from the event log alone. */
export async function cost(ctx: CommandContext): Promise<number> {
  const [sessionId, ...extra] = ctx.args;
  if (!sessionId || extra.length > 0) throw new ExitError(2, USAGE);
  const tree = await readCostTree(loadConfig(), sessionId);
  if (ctx.flags.json) ctx.out(JSON.stringify(tree));
  else for (const line of formatCostTree(tree)) ctx.out(line);
  return 0;
}
