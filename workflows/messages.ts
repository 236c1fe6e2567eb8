import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { BlobRef, GitOperation } from '../schemas/generated/events';
import type { ChildInfo, ChildOutcome } from './child-types';
import type { InboxMessage } from './session-types';
import type { Slice, Spend } from './tree-ledger';

/*
 * Signals carry facts another party already decided (a message arrived, a child ended): the
 * sender needs no answer. Updates are requests from this session's own kernel that need one
 * (a child id, a refusal, the messages taken), and are logged before they return.
 */

export const deliverMessageSignal = defineSignal<[InboxMessage]>('deliverMessage');
export const childFinishedSignal = defineSignal<[ChildOutcome]>('childFinished');
/**
 * From a host at its loaded-kernel cap: unload now if idle and loaded, as the idle timer would.
 * A signal: the host checks the effect on its own Jupyter server, and a session that is no longer
 * idle just ignores it.
 */
export const unloadIdleSignal = defineSignal('unloadIdle');

export interface SpawnRequest {
  task: string;
  /** The whole task when `task` is a preview (see session-types.ts). */
  taskBlob?: BlobRef | null;
  name: string | null;
  model: string | null;
  spec: string | null;
  /** From the spec: the child's turn limit, when it sets one. */
  maxTurns?: number | null;
  /** rlm(task, budget_tokens=, budget_usd=): the share of the tree's budget the child's subtree may spend. */
  slice?: Slice | null;
  requestId: string | null;
  /** 'worktree': the child works in a git worktree of its own, merged back by the parent (docs/workspace.md). Absent: the parent's workspace. */
  workspace?: 'worktree' | null;
}
/** `limit`: the refusal is a limit (raised in the kernel as LimitError), not a bad request. */
/** `capped`: the budget slice asked for was more than remained; says what the child got instead. */
export type SpawnReply = { ok: true; childId: string; name: string; capped?: string | null } | { ok: false; reason: string; limit?: boolean };
export const spawnChildUpdate = defineUpdate<SpawnReply, [SpawnRequest]>('spawnChild');

/** What the worker's merge of a child's worktree did (h.merge()), to be logged as WorkspaceMerged. */
export interface MergeRecord { childId: string; status: 'merged' | 'unchanged' | 'conflict'; files: string[]; base: string; result: string | null }
export const recordMergeUpdate = defineUpdate<void, [MergeRecord]>('recordMerge');

/** A git write the worker made for the session's agent (git.commit, git.branch), to be logged as GitOperation. */
export type GitRecord = Omit<GitOperation, 'type'>;
export const recordGitUpdate = defineUpdate<void, [GitRecord]>('recordGit');

export type SendReply = { ok: true; messageId: string; to: string } | { ok: false; reason: string; limit?: boolean };
export const sendAgentMessageUpdate = defineUpdate<SendReply, [{ to: string; text: string; textBlob?: BlobRef | null }]>('sendAgentMessage');

/** Takes up to `max` unread messages (all when null), waiting up to `waitMs` for one to arrive. */
export const takeMessagesUpdate = defineUpdate<InboxMessage[], [{ waitMs: number; max: number | null }]>('takeMessages');

export interface FinalAnswer {
  answer: string;
  /** The whole answer when `answer` is a preview. */
  answerBlob?: BlobRef | null;
}
export const setFinalUpdate = defineUpdate<void, [FinalAnswer]>('setFinal');

/** `slice`: the share of the tree's budget the child got, when the spawn asked for one; `capped` says why it is less than asked. */
export type ReserveReply = { ok: true; slice?: { granted: Slice; capped: string | null } } | { ok: false; reason: string };
/** To a tree's root: reserve one of the tree's sessions for `childId`, spawned anywhere below it (update id `reserve:<childId>`). */
export const reserveTreeSessionUpdate = defineUpdate<ReserveReply, [{ childId: string; slice?: Slice | null }]>('reserveTreeSession');

/** A session's cumulative spend for its tree's root; `call`: it also asks to make a model call; `end`: it has ended. */
export interface TreeSpendReport {
  sessionId: string;
  spent: Spend;
  want: 'call' | 'report' | 'end';
}
export type TreeBudgetReply = { ok: true } | { ok: false; scope: 'tree' | 'slice'; reason: string };
/**
 * To a tree's root, before and after every model call of a session below it. An update, not a
 * signal: the asker needs the yes or no, and may be held until calls in flight are reported.
 */
export const chargeTreeBudgetUpdate = defineUpdate<TreeBudgetReply, [TreeSpendReport]>('chargeTreeBudget');

export type DeleteReply = { ok: true } | { ok: false; reason: string };
export const deleteChildUpdate = defineUpdate<DeleteReply, [{ name: string }]>('deleteChild');

export interface SessionStatusView {
  sessionId: string;
  name: string;
  turn: number;
  tokens: number;
  nextSeq: number;
  /** idle: retained and waiting for work, or waiting on a durable timer for a scheduled tick; unloaded: idle with its kernel shut down; approval: waiting for an operator's yes to spend more. */
  phase: 'starting' | 'model' | 'cell' | 'idle' | 'unloaded' | 'approval' | 'throttled' | 'done';
  /** The round of work it is in (idle: the one it last finished): 0 until a retained session is woken again. */
  round: number;
  unread: number;
  messagesSent: number;
  /** The goal's status, null with no goal. */
  goal: string | null;
  /** Active schedules. */
  schedules: number;
  /** Approvals of this session waiting for an operator (`recur approvals`). */
  openApprovals: number;
}
export const getStatusQuery = defineQuery<SessionStatusView>('getStatus');
export const getChildrenQuery = defineQuery<ChildInfo[]>('getChildren');
