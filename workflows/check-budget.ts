/** The measures of a tree's budget and the pure check of one scope against it. No I/O, no SDK imports. */

/** What one session has spent in all, compactions included; turns are its logged model calls. */
export interface Spend {
  tokens: number;
  costUsd: number;
  turns: number;
}

/** The tree's budget (from its root's limits); null: no limit on that measure. */
export interface TreeBudget {
  tokens: number | null;
  costUsd: number | null;
  seconds: number | null;
  turns: number | null;
}

/** A share of the tree's budget given to a child's subtree (rlm(task, budget_usd=, budget_tokens=)). */
export interface Slice {
  tokens: number | null;
  costUsd: number | null;
}

/** A budget and whose spend it bounds. */
export interface Scope {
  /** '' for the whole tree, else the slice holder's id: the scope is it and every session below it. */
  holder: string;
  limit: TreeBudget;
}

const usd = (n: number) => `$${n.toFixed(4)}`;

/** Whether session `id` falls under the scope held by `holder`. */
export const inScope = (holder: string, id: string): boolean => holder === '' || id === holder || id.startsWith(`${holder}/`);

export const describeScope = (scope: Scope): string => (scope.holder === '' ? "the tree's budget" : `the budget slice of ${scope.holder}`);

/** Which of a scope's budgets is spent, in words naming it (spent vs limit); null while all hold. Pure. */
export function spentReason(scope: Scope, spent: Spend, elapsedMs: number): string | null {
  const { limit } = scope;
  const whose = scope.holder === '' ? 'tree' : `slice of ${scope.holder}:`;
  if (limit.tokens !== null && spent.tokens >= limit.tokens) return `${whose} token budget spent: ${spent.tokens} of ${limit.tokens} tokens`;
  if (limit.costUsd !== null && spent.costUsd >= limit.costUsd) return `${whose} cost budget spent: ${usd(spent.costUsd)} of $${limit.costUsd}`;
  if (limit.turns !== null && spent.turns >= limit.turns) return `${whose} turn budget spent: ${spent.turns} of ${limit.turns} model turns`;
  const secs = Math.floor(elapsedMs / 1000);
  if (limit.seconds !== null && secs >= limit.seconds) return `${whose} time budget spent: ${secs}s of ${limit.seconds}s`;
  return null;
}
