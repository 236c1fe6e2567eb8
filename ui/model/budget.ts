import type { StoredEvent } from '../../schemas';
import { costTree, type CostNode, type Spent } from '../../services/projector/cost-tree';

export interface BudgetLine {
  readonly sessionId: string;
  readonly name: string;
  /** Its subtree's spend so far. */
  readonly spent: Spent;
  readonly budget: CostNode['budget'];
}

/**
 * What the tree spent up to and including `events[upTo]` (the tree's events in causal order),
 * per session that has a budget and for the root always, by the projector's own cost fold.
 * O(upTo): the cost tree is a fold of the whole prefix.
 */
export function budgetAt(rootId: string, events: readonly StoredEvent[], upTo: number): BudgetLine[] {
  const root = costTree(rootId, events.slice(0, upTo + 1));
  if (!root) return [];
  const lines: BudgetLine[] = [];
  const walk = (n: CostNode) => {
    if (n === root || n.budget) lines.push({ sessionId: n.sessionId, name: n.name, spent: n.total, budget: n.budget });
    n.children.forEach(walk);
  };
  walk(root);
  return lines;
}

/** `1,234 of 10,000 tok`, `$0.0123 of $1.00`, or the spend alone when there is no limit. */
export function against(spent: number, limit: number | null | undefined, unit: 'tok' | 'usd'): string {
  const fmt = unit === 'usd' ? (n: number) => `$${n.toFixed(4)}` : (n: number) => `${n.toLocaleString('en-US')} tok`;
  return limit === null || limit === undefined ? fmt(spent) : `${fmt(spent)} of ${fmt(limit)}`;
}
