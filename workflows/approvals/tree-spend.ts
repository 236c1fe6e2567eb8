import type { SessionState } from '../session-state';
import type { Spend } from './approval-policy';

/** What this session and the sub-agents below it have spent; a child's share is what it last reported. */
export function treeSpend(s: SessionState): Spend {
  let { tokens } = s;
  let { costUsd } = s.long;
  for (const child of s.children.values()) {
    tokens += child.spent?.tokens ?? 0;
    costUsd += child.spent?.costUsd ?? 0;
  }
  return { tokens, costUsd };
}
