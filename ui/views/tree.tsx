/** The session tree: one node per session, its state from the log, its own spend; a node opens that session's timeline. */
import { useMemo } from 'preact/hooks';
import { formatCost } from '../state/format';
import { treeNodes, type TreeNodeRow } from '../state/tree-nodes';
import type { TreeState } from '../state/types';

const INDENT_PX = 20;

function Node(props: { node: TreeNodeRow; focus: boolean }) {
  const { node } = props;
  return (
    <li data-testid="tree-node" data-session={node.sessionId} data-status={node.status} class={props.focus ? 'focus' : undefined}>
      <a href={`#/s/${encodeURIComponent(node.sessionId)}/timeline`} title={`${node.sessionId}\nwith sub-agents: ${formatCost(node.totalCostUsd)}`}>
        <span class="node-name" style={{ paddingLeft: `${node.depth * INDENT_PX}px` }}>{node.depth > 0 ? '└ ' : ''}{node.name}</span>
        <span class={`status status-${node.status}`}>{node.status}</span>
        <span class="mono dim">{node.model}</span>
        <span class="num mono">{formatCost(node.costUsd)}</span>
        <span class="num">{node.turns} turns</span>
      </a>
    </li>
  );
}

export function TreeView(props: { tree: TreeState }) {
  const { tree } = props;
  const nodes = useMemo(() => treeNodes(tree.rootId, tree.events), [tree.rootId, tree.events]);
  if (nodes.length === 0) return <p class="notice">The tree's start is not in the log yet.</p>;
  return (
    <ul class="tree" data-testid="session-tree">
      {nodes.map((n) => <Node key={n.sessionId} node={n} focus={n.sessionId === tree.focus} />)}
    </ul>
  );
}
