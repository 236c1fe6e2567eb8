/**
 * The session tree view's nodes, folded from the tree's log alone: each session's state as its
 * own events leave it, with name, model, cost and turns from the cost fold `recur cost` uses
 * (services/projector/cost-tree.ts). Pure.
 */
import { costTree, type CostNode } from '../../services/projector/cost-tree';
import type { StoredEvent } from '../../schemas';

export type NodeStatus = 'running' | 'unloaded' | 'retained' | 'completed' | 'failed' | 'cancelled';

export interface TreeNodeRow {
  sessionId: string;
  name: string;
  model: string;
  status: NodeStatus;
  /** This session's own spend and model calls. */
  costUsd: number;
  turns: number;
  /** Its subtree's spend, itself included. */
  totalCostUsd: number;
  depth: number;
}

/** One session's state after one more of its events. */
function step(status: NodeStatus, e: StoredEvent): NodeStatus {
  const ev = e.event;
  switch (ev.type) {
    case 'SessionCompleted':
      return 'completed';
    case 'SessionFailed':
      return ev.kind === 'cancelled' ? 'cancelled' : 'failed';
    // A later round of a retained session: it stays addressable after a completed one.
    case 'TaskEnded':
      return ev.status === 'completed' ? 'retained' : ev.status;
    case 'SessionUnloaded':
      return 'unloaded';
    case 'SessionReloaded':
    case 'SessionResumed':
      return 'running';
    // A new task reaches an answered child as a message.
    case 'MessageDelivered':
      return status === 'completed' || status === 'retained' ? 'running' : status;
    // Ended for good; a round under way logged its own end (TaskEnded failed or cancelled) just before.
    case 'SessionClosed':
      return status === 'failed' || status === 'cancelled' ? status : 'completed';
    default:
      return status;
  }
}

export function nodeStatuses(events: readonly StoredEvent[]): Map<string, NodeStatus> {
  const out = new Map<string, NodeStatus>();
  for (const e of events) out.set(e.sessionId, step(out.get(e.sessionId) ?? 'running', e));
  return out;
}

/** The tree's sessions depth first (children by id), or none while the root's start is not logged. */
export function treeNodes(rootId: string, events: readonly StoredEvent[]): TreeNodeRow[] {
  const root = costTree(rootId, events);
  if (!root) return [];
  const statuses = nodeStatuses(events);
  const rows: TreeNodeRow[] = [];
  const visit = (n: CostNode, depth: number): void => {
    rows.push({
      sessionId: n.sessionId, name: n.name, model: n.model, status: statuses.get(n.sessionId) ?? 'running',
      costUsd: n.own.costUsd, turns: n.own.calls, totalCostUsd: n.total.costUsd, depth,
    });
    for (const c of n.children) visit(c, depth + 1);
  };
  visit(root, 0);
  return rows;
}
