/**
 * The daemon's wire protocol (v1), shared by the daemon and its clients. JSON only; every error
 * reply is `{ error: { name, message, field?, allowed? } }` with a 4xx/5xx status.
 */
import type { ChildInfo } from '../../workflows/child-types';
import type { SessionLimits, SessionResult } from '../../workflows/session-types';
import type { SessionStatusView } from '../../workflows/messages';
import type { StoredEvent } from '../../schemas';
import type { GoalSpec } from '../../workflows/long-run-types';
import type { ApprovalAnswer, OpenApproval } from '../../workflows/approvals/approval-messages';
import type { CatalogEntry } from '../projector/catalog';
import type { BundleVerdict } from '../projector/bundle/verify-bundle';

export type { CatalogEntry } from '../projector/catalog';
export type { TreeVerdict } from '../../log/verify-tree';

export interface WorkerState {
  pid: number | null;
  /** Unexpected exits the supervisor restarted the worker after, since the daemon started. */
  restarts: number;
  alive: boolean;
}

export interface HealthReply {
  ok: true;
  worker: WorkerState;
}

export interface StartSessionRequest {
  task: string;
  /** `provider/model`, or `scripted:<absolute path>`. */
  model: string;
  /** A model that takes over once `model` has been throttled for `afterMinutes` in all (`--backup-model`). */
  backup?: { model: string; afterMinutes: number };
  /** Readable prefix of the new session id (`<name>-<time><random>`); `r<time><random>` without it. */
  name?: string;
  limits?: Partial<SessionLimits>;
  /** A goal that keeps the session going until met (or, open-ended, until a budget ends it). */
  goal?: GoalSpec;
  /** Autonomous mode: overnight-sized limits, keep-going, and quality gates run when the agent says it is done. */
  autonomous?: { gates: string[]; gateCwd?: string };
  /** The tree's outbound network policy (`none`, `full`, `allow:HOST[:PORT],…`); RECUR_SANDBOX_NET without it. */
  net?: string;
  /** A research session on this shipped task (tasks/<name>): research.* and ledger.* in its kernel, records judged by the host. */
  research?: string;
  /** The research session's knowledge tier (weights-only, archive, full; weights-only without it): its papers and network. */
  knowledge?: string;
  /** A research session's generator models: one generator spec on each in the tree's harness (generator_1, …); without it, one on the spawner's model. */
  generators?: string[];
  /**
   * The tree's workspace: an existing directory (absolute; symlinks are resolved), the kernel's
   * working directory and its one read-write mount. Without it the session gets a directory of its own under the home.
   */
  cwd?: string;
  /**
   * Whether the root stays addressable after its answer, taking follow-ups (`recur send`) until
   * killed (docs/conversations.md). Default true; `recur run --ci` and `--once` send false, so the
   * workflow ends at the answer.
   */
  retain?: boolean;
  /**
   * CI mode (`recur run --ci`): nobody answers approvals, so each one the policy requires is
   * refused at once and logged (docs/approvals.md). Default false.
   */
  ci?: boolean;
}

/** `POST /v1/sessions/:id/fork` (docs/fork.md): a new root whose history is the session's events 0..at. */
export interface ForkSessionRequest {
  /** The origin's last event to copy; a seq after a whole step, before the session's end. */
  at: number;
  /** Reaches the fork as a user message at its first turn; without it the fork just goes on. */
  instruction?: string;
  /** The model the fork calls from here on; the origin's without it. */
  model?: string;
  /** The fork's workspace, as for a run; a directory of its own under the home without it. */
  cwd?: string;
  /** As for a run: false ends the fork at its answer (CI mode, --once); it stays open for follow-ups otherwise. */
  retain?: boolean;
}

export interface ForkSessionReply {
  sessionId: string;
  forkedFrom: { sessionId: string; seq: number; hash: string };
  maxTurns: number;
}

export interface StartSessionReply {
  sessionId: string;
  /** The root's turn cap, so a caller can state it (a goal run without autonomous mode ends there). */
  maxTurns: number;
}

/** Temporal's execution status of the session's latest run, lower-cased (`running`, `completed`, ...). */
export type ExecutionStatus = string;

export interface SessionSummary {
  sessionId: string;
  status: ExecutionStatus;
  /** ISO 8601; the start of the session's first run. */
  startTime: string;
  closeTime: string | null;
  /** A running session that answered and waits for a message (docs/conversations.md): `idle`, or `unloaded` with its kernel shut down. */
  phase?: 'idle' | 'unloaded' | 'throttled' | null;
  /** While `throttled`: when the provider said calls pass again (ISO 8601), the end of the session's wait. */
  throttledUntil?: string | null;
}

export interface ListSessionsReply {
  sessions: SessionSummary[];
}

export interface SessionDetail extends SessionSummary {
  runId: string;
  historyLength: number;
  /** The workflow's own view, from getStatusQuery; null when closed or when no worker answered. */
  live: SessionStatusView | null;
  children: ChildInfo[] | null;
  /** Why `live` is null although the session runs (no worker polling, query timed out). */
  queryError: string | null;
  /** The workflow's result once it closed normally (a failed session returns `status: 'failed'` here). */
  result: SessionResult | null;
}

export interface SendMessageRequest {
  text: string;
}

export interface SendMessageReply {
  messageId: string;
}

/** `POST /v1/sessions/:id/interrupt`: false when no cell was running, so nothing was interrupted. */
export interface InterruptReply {
  interrupted: boolean;
}

/** `POST /v1/sessions/:id/model`: the model the session's next calls use. */
export interface SwitchModelRequest {
  model: string;
}
export interface SwitchModelReply {
  model: string;
}

/** `POST /v1/sessions/:id/compact`: the next model call compacts the transcript (Compacted, manual). */
export interface CompactReply {
  requested: true;
}

/** A record of the session tree the reader could not use; it is reported, never dropped silently. */
export interface ProblemFrame {
  kind: 'problem';
  problem: 'undecodable' | 'conflict' | 'error';
  /** What is wrong, in words. */
  reason: string;
  eventId?: string;
  partition?: number;
  offset?: string;
  key?: string | null;
}

/** One WebSocket text frame of `GET /v1/sessions/:id/events`: a StoredEvent as JSON, or a problem. */
export type StreamFrame = StoredEvent | ProblemFrame;

export function isProblemFrame(frame: StreamFrame): frame is ProblemFrame {
  return (frame as ProblemFrame).kind === 'problem';
}

/**
 * A piece of model text as it streams, sent only to a stream opened with `?deltas=1`. Ephemeral
 * and best-effort: never logged, lost when nobody listens, repeated when a call is retried; the
 * session's ModelCalled event is the record of what the model said.
 */
export interface DeltaFrame {
  kind: 'delta';
  sessionId: string;
  /** The model call's turn, as its ModelCalled will carry it. */
  turn: number;
  text: string;
}

/** A frame of a stream opened with `?deltas=1`. */
export type LiveFrame = StreamFrame | DeltaFrame;

export function isDeltaFrame(frame: unknown): frame is DeltaFrame {
  const f = frame as DeltaFrame | null;
  return typeof f === 'object' && f !== null && f.kind === 'delta' && typeof f.sessionId === 'string' && typeof f.text === 'string' && typeof f.turn === 'number';
}

/** A tree's events so far, session by session, each by seq, and the records the reader could not use. */
export interface TreeLog {
  events: StoredEvent[];
  problems: ProblemFrame[];
}

/**
 * `GET /v1/sessions/:id/log?after=<cursor>&limit=<n>`: one page of the tree's log. `after` is the
 * attach cursor's shape (JSON sessionId → last seen seq); pass `nextCursor` back for the next page
 * while `more` is true. Every page carries the problems.
 */
export interface LogReply extends TreeLog {
  nextCursor: Record<string, number>;
  more: boolean;
}

/**
 * `GET /v1/sessions/:id/tree` (`application/x-ndjson`): the whole tree under :id as logged so
 * far, one JSON value per line: a TreeHead, then TreeChunk lines holding the tree's events in
 * causal order (log/causal-order.ts), then TreeEnd. A body without TreeEnd was
 * cut short. A page can show the first rows while the rest is still on the way.
 */
export type TreeLine = TreeHead | TreeChunk | TreeEnd;

export interface TreeHead {
  kind: 'head';
  /** Events per session the chunks will hold: a reader knows the tree's size before its events arrive. */
  counts: Record<string, number>;
  /** The root's harness log (`harness:<root>`), by seq. */
  harness: StoredEvent[];
  problems: ProblemFrame[];
  /** Per session the highest seq included: `after` for the events WebSocket, which goes on from there with nothing missed or repeated. */
  cursor: Record<string, number>;
}

export interface TreeChunk {
  kind: 'events';
  events: StoredEvent[];
}

export interface TreeEnd {
  kind: 'end';
}

/** The tree as a client holds it once every line of the reply is in (services/daemon/tree-lines.ts). */
export interface TreeReply {
  events: StoredEvent[];
  harness: StoredEvent[];
  problems: ProblemFrame[];
  cursor: Record<string, number>;
}

/**
 * `GET /v1/catalog`: one summary per root tree in the topic. `complete` once the daemon's
 * catalog has read the topic up to where it ended when the catalog started (the first request);
 * until then trees are missing or partly counted. `undecodable`: records it skipped.
 */
export interface CatalogReply {
  roots: CatalogEntry[];
  complete: boolean;
  undecodable: number;
}

/** Every error reply's body (errors/index.ts maps an error to its status and this). */
export type { ErrorBody } from '../../errors';

/** `POST /v1/ui/codes` (bearer token only): a one-time code the viewer's page exchanges at `POST /ui/login` for its cookie. */
export interface UiCodeReply {
  code: string;
  expiresAt: string;
}

/** `GET /v1/ui/info`: the viewer's links. */
export interface UiInfo {
  /** Base URL of a reachable Temporal UI; null when none is configured or it did not answer. */
  temporalUi: string | null;
  namespace: string;
  /** Link template for a trace (`…{traceId}…`); null when none is configured. */
  traceUrl: string | null;
  /** Set when the viewer shows one audit bundle (`recur view`, `recur export --html`), not a daemon's log. */
  bundle?: BundleViewInfo;
}

/** An Ed25519 public key as an auditor compares it out of band: its id and the SHA-256 of the raw key. */
export interface KeyFingerprint {
  keyId: string;
  sha256: string;
}

/** The bundle a viewer shows and the keys its verdict rests on (docs/viewer.md "Viewing an audit bundle"). */
export interface BundleViewInfo {
  /** The bundle's file name. */
  file: string;
  treeId: string;
  exportedAt: string;
  /** `given`: the keys passed with --pubkey; `bundle`: the bundle's own, which prove only that it is self-consistent. */
  keys: { source: 'given' | 'bundle'; fingerprints: KeyFingerprint[] };
  /** When the verdict shown was computed once, for an HTML file; null when the server computes it on request. */
  verifiedAt: string | null;
}

/** The id of the `<script type="application/json">` an HTML export carries its `EmbeddedBundle` in. */
export const EMBEDDED_BUNDLE_ID = 'recur-bundle';

/** What `recur export --html` embeds in its page: every answer the viewer would ask a server for, about one tree. */
export interface EmbeddedBundle {
  info: UiInfo & { bundle: BundleViewInfo };
  catalog: CatalogReply;
  /** The root whose tree the page opens. */
  rootId: string;
  /** `GET /v1/sessions/<rootId>/tree`'s lines. */
  tree: TreeLine[];
  /** Computed at export time (`info.bundle.verifiedAt`). */
  verdict: BundleVerdict;
  /** The blobs the events name, base64 by sha256; a snapshot's variable pickles are left out (the viewer never reads them). */
  blobs: Record<string, string>;
}

/** `GET /v1/approvals`: every running session's approvals waiting for an operator, oldest first. */
export interface ApprovalsReply {
  approvals: OpenApproval[];
}

/** `POST /v1/approvals/<id>`: the approval as decided. */
export interface DecideApprovalReply {
  approval: ApprovalAnswer;
}
