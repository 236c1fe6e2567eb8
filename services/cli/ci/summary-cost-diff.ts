import type { StoredEvent } from '../../../schemas';
import { costTree, type CostNode } from '../../projector/cost-tree';
import { diffStat, formatDiffStat } from '../../projector/diff-stat';
import { cell, fenced } from './markdown';

/**
 * The summary's cost and diff sections, as Markdown lines: the cost tree's projection and the
 * diff stat of the root's net change (services/projector).
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

/** The root's net change as `git diff --stat` words it, and where the whole diff is. */
export function diffSection(treeId: string, netDiff: string | null): string[] {
  const stats = diffStat(netDiff ?? '');
  if (stats.length === 0) return ['No change to the workspace was logged.'];
  return [...fenced(formatDiffStat(stats).join('\n')), `The whole diff: \`recur diff ${treeId}\`.`];
}
