/** Plain data shared by the session workflow, its handlers and its callers. No I/O, no SDK imports. */
import type { BlobRef, SandboxPolicy } from '../schemas/generated/events';
import type { ApprovalCarry } from './approvals/approval-book';
import type { ApprovalPolicy } from './approvals/approval-policy';
import type { ChildInfo } from './child-types';
import type { OperatorCarry } from './operator-controls';
import type { JobCarry } from './jobs/job-book';
import type { ResearchCarry } from './research/research-book';
import type { ResearchSpec } from './research/research-messages';
import type { AutonomousSpec, GoalSpec, LongRunCarry } from './long-run-types';
import type { RateBucket } from './message-rate';
import type { SeenCarry } from './seen-messages';
import type { LedgerCarry, Slice } from './tree-ledger';

/* Large values (tasks, answers, messages) arrive as a preview within their field limit plus the
 * BlobRef of the whole, stored at the edge where they entered; readers that need it resolve the ref. */

export interface SessionLimits {
  maxTurns: number;
  /** The tree's token budget (in + out, every session of the tree), counted by its root; null for no limit. */
  maxTokens: number | null;
  /** The tree's wall-clock budget in seconds from the root's start, checked by the root; null for no limit. */
  maxSeconds: number | null;
  cellTimeoutSeconds: number;
  maxDepth: number;
  /** Model turns per workflow run before continuing as new. */
  turnsPerRun: number;
  /** Cells between kernel snapshots: bounds how many cells a restore must re-run. */
  snapshotEveryCells: number;
  /** Seconds a retained sub-agent may sit with no message before its kernel is snapshotted and shut down. */
  idleUnloadSeconds: number;
  /** Root sessions run /refine every this many model turns; 0 or unset: never (RECUR_AUTO_REFINE_TURNS). */
  autoRefineTurns?: number;
  /** The tree's cost budget in US dollars, counted by its root; null or absent for no limit. */
  maxCostUsd?: number | null;
  /** Model calls the whole tree may make, counted by its root; null or absent for no limit. */
  maxTreeTurns?: number | null;
  /** Estimated prompt tokens past which older turns are summarised; null or absent never compacts. */
  compactAtTokens?: number | null;
  /** Children one session may spawn (RECUR_MAX_CHILDREN). */
  maxChildren: number;
  /** Sessions one tree may hold, its root included; counted by the root (RECUR_MAX_TREE_SESSIONS). */
  maxTreeSessions: number;
  /** Messages a session may send a minute, sustained (RECUR_MESSAGES_PER_MINUTE). */
  messagesPerMinute: number;
  /** Messages a session may send at once before the per-minute rate applies (RECUR_MESSAGE_BURST). */
  messageBurst: number;
  /** The sandbox its host runs the kernel in (RECUR_SANDBOX*), recorded in SessionStarted; absent in inputs from before it was. */
  sandbox?: SandboxPolicy;
}

/** The session's latest kernel snapshot: a manifest blob and the last seq it reflects. */
export interface SnapshotPointer {
  manifest: { sha256: string; size: number };
  coversSeq: number;
}

export interface SessionInput {
  sessionId: string;
  rootId: string;
  parentId: string | null;
  /** 'root' for a top-level session, the spawn name for a child. The scripted model keys replies by it. */
  name: string;
  task: string;
  /** The whole task when `task` is a preview. */
  taskBlob?: BlobRef | null;
  /** `provider/model` or `scripted:<file>`. */
  model: string;
  /** A model that takes over once `model` has been throttled for `afterMinutes` in all (`recur run --backup-model`); children inherit it. */
  backup?: { model: string; afterMinutes: number } | null;
  depth: number;
  /**
   * The session's workspace as its host resolved it when the session was made (docs/workspace.md):
   * the root's `--cwd` or its directory under the home; a child's parent's, or its own worktree.
   * Absent in inputs from before it was recorded. The host's record stays what the kernel is bound to.
   */
  workspace?: string;
  limits: SessionLimits;
  /** A goal the session starts with (`recur run --goal`); it keeps the session going until met. */
  goal?: GoalSpec | null;
  /** Autonomous mode: keep going until the gates pass or a limit is reached, then wrap up. */
  autonomous?: AutonomousSpec | null;
  /** What needs an operator's yes (RECUR_APPROVAL_POLICY); children inherit it. Absent: the default policy. */
  approvals?: ApprovalPolicy;
  /** A child's share of the tree's budget (rlm(task, budget_tokens=, budget_usd=)), as its parent asked and the root granted it. */
  slice?: { asked: Slice; granted: Slice; capped: string | null } | null;
  /** Set on a slice holder and everything below it: its calls count against a slice even where the tree has no budget. */
  inSlice?: boolean;
  /** Set on a fork (`recur fork`): its history is copied from the origin's log before it goes on. */
  fork?: ForkSpec | null;
  /** A root stays addressable after its answer, as a retained child (retain.ts); set by the daemon but in CI mode or with --once. */
  retain?: boolean;
  /** A research session's task and starting record (`recur run --research`); its sub-agents have none: their research calls go to the root's ledger. */
  research?: ResearchSpec | null;
  /** Present when this run continues an earlier run of the same session (continue-as-new). */
  carry?: SessionCarry;
}

/** What `recur fork` asks for: the origin (a root), the last of its events to copy, and a new instruction if any. */
export interface ForkSpec {
  originId: string;
  atSeq: number;
  /** Delivered as a user message at the fork's first turn. */
  instruction?: InboxMessage | null;
}

export interface InboxMessage {
  messageId: string;
  /** Sender session id, or 'user' for a message sent with `recur send`. */
  from: string;
  text: string;
  /** The whole text when `text` is a preview. */
  textBlob?: BlobRef | null;
  /** Set on a parent's new task for a retained child (`rlm(task, name=...)` again). */
  task?: boolean;
}

/** The trace ids an event carries; null: untraced. */
export interface EventTrace {
  traceId: string | null;
  spanId: string | null;
}

/** The head of a session's log, carried over a continue-as-new (workflows/session-log.ts). */
export interface LogCarry {
  nextSeq: number;
  headHash: string;
  /** The last appended event's; absent in runs carried over before it was carried. */
  trace?: EventTrace;
}

/** Everything a continued run needs; small by construction (no transcript: that lives in the log). */
export interface SessionCarry extends LogCarry {
  turn: number;
  tokens: number;
  startedAt: number;
  children: ChildInfo[];
  inbox: InboxMessage[];
  seen: SeenCarry;
  messagesSent: number;
  rate: RateBucket | null;
  /** Root only: sessions the tree holds so far (each spawn anywhere in it reserved one). */
  treeSessions: number;
  cellsSinceSnapshot: number;
  lastSnapshot: SnapshotPointer | null;
  retained?: RetainState | null;
  longRun?: LongRunCarry;
  /** Root only: the tree's spend (workflows/tree-ledger.ts). */
  ledger?: LedgerCarry;
  approvals?: ApprovalCarry;
  /** The manifest the session's start scan logged (workflows/workspace-log.ts); its end scan diffs against it. */
  workspaceStart?: BlobRef | null;
  operator?: OperatorCarry;
  /** Where its kernel is (null: not placed yet); absent in runs carried over from before placement existed. */
  host?: string | null;
  jobs?: JobCarry;
  /** Experiments a sub-agent asked its root for that had not ended (SessionState.awaited). */
  awaited?: string[];
  research?: ResearchCarry;
}

/**
 * A sub-agent (or a root started with `retain`) that completed its first task stays addressable
 * (workflows/retain.ts). `round` counts the pieces of work after that task; `idleSince` is
 * workflow time, so the idle timer resumes with the right remainder after continue-as-new.
 */
export interface RetainState {
  round: number;
  /** Waiting for a message or task (true), or working on one (false). */
  idle: boolean;
  idleSince: number;
  /** seq of its SessionUnloaded while its kernel is shut down; null while loaded. */
  unloadedSeq: number | null;
  /** The new-task message the current piece of work answers, if a task (not a plain message) woke it. */
  taskMessageId?: string | null;
  /** The host asked, while it idled loaded, that its kernel be unloaded before the idle limit (unloadIdleSignal). */
  unloadAsked?: boolean;
}

export type FailureKindName =
  | 'budget' | 'max_turns' | 'script_exhausted' | 'model_error' | 'kernel_error' | 'cancelled' | 'timeout' | 'internal' | 'approval_refused';

export type SessionResult =
  | { status: 'completed'; answer: string; answerBlob?: BlobRef | null }
  | { status: 'failed'; kind: FailureKindName; reason: string };
