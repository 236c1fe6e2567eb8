import type { StoredEvent } from '../../../schemas';
import { costTree, type CostNode } from '../../projector/cost-tree';
import { cell } from './markdown';

/**
 * The summary's cost and diff sections. Each takes the tree's events and returns Markdown
 * lines; they are the only place the summary learns spend or workspace changes, so the tree-wide
 * cost projection and the WorkspaceChanged diff stat plug in here and nowhere else.
 */

/** The tree's spend per agent (services/projector/cost-tree.ts), indented by depth, with the tree's total last. */
export function costSection(treeId: string, events: readonly StoredEvent[]): string[] {
  const root = costTree(treeId, events);
  if (!root) return ['No session of this tree was logged.'];
  const rows: string[] = [];
  const walk = (n: CostNode, depth: number) => {
    const o = n.own;
    const estimated = o.estimatedCalls > 0 ? ` (${o.estimatedCalls} estimated)` : '';
    rows.push(`| ${'&nbsp;&nbsp;'.repeat(depth)}${cell(n.sessionId)} | ${cell(n.status)} | ${o.calls} | ${o.tokensIn} | ${o.tokensOut}${estimated} | ${o.costUsd.toFixed(4)} | ${(n.wallMs / 1000).toFixed(1)} |`);
    for (const c of n.children) walk(c, depth + 1);
  };
  walk(root, 0);
  const t = root.total;
  return [
    '| session | status | model calls | tokens in | tokens out | cost (USD) | wall time (s) |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows,
    `| **tree** | | ${t.calls} | ${t.tokensIn} | ${t.tokensOut} | ${t.costUsd.toFixed(4)} | ${(root.wallMs / 1000).toFixed(1)} |`,
  ];
}

/** Files the tree changed in its workspace; until WorkspaceChanged is logged, says that no change was recorded. */
export function diffSection(events: readonly StoredEvent[]): string[] {
  const changes = events.filter((e) => (e.type as string) === 'WorkspaceChanged').length;
  return changes === 0 ? ['No workspace changes were logged.'] : [`${changes} workspace change event(s); see \`recur diff\`.`];
}
