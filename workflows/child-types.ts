/** Plain data about a session's sub-agents, as the parent keeps and hears it. No I/O, no SDK imports. */
import type { BlobRef } from '../schemas/generated/events';
import type { Spend } from './approvals/approval-policy';

export type ChildStatus = 'running' | 'completed' | 'failed' | 'cancelled';

export interface ChildInfo {
  name: string;
  id: string;
  task: string;
  taskBlob?: BlobRef | null;
  model: string;
  status: ChildStatus;
  answer: string | null;
  answerBlob?: BlobRef | null;
  error: string | null;
  /** The message that gave a retained child its current task; absent for the first task. */
  taskMessageId?: string | null;
  /** What the child and its own sub-agents spent, as it last reported (counts toward the tree's approval threshold). */
  spent?: Spend;
}

/** What a child tells its parent when it ends; delivered by signal so it survives the parent continuing-as-new. */
export interface ChildOutcome {
  name: string;
  status: Exclude<ChildStatus, 'running'>;
  answer: string | null;
  answerBlob?: BlobRef | null;
  error: string | null;
  /** 0 for the first task; a retained child's later pieces of work count up from 1. */
  round: number;
  /** The new-task message this piece of work answers; absent when it answers the first task or a plain message. */
  taskMessageId?: string | null;
  /** What the child's tree has spent so far. */
  spent?: Spend;
  /** Ended by CI mode's policy (approvals.ci `end`): the run ends, so its parent ends too. Absent: false. */
  endsRun?: boolean;
}
