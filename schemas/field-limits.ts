/**
 * The inline limit of every string field of every event, in UTF-16 characters, and the pure clip
 * that holds an event to them. No dependencies, so workflows import it as well as activities.
 * Sized so an event with every field at its limit, written in 3-byte UTF-8 characters (the worst
 * case per character), still encodes under MAX_EVENT_BYTES (tests/unit/field-limits.test.ts).
 * Values that may legitimately be larger are cut to a preview at the edge where they enter and
 * stored whole in the blob store (a BlobRef field, or a note naming the blob); the clip here is the
 * last net, for a value some path forgot to offload.
 */
import type { BlobRef, EventType, RecurEventInput } from './generated/events';

/** A string's limit in characters; an array's item count and item limit; a record's field limits. */
export type FieldLimit = number | { readonly items: number; readonly of: FieldLimit } | { readonly fields: LimitTable };
export type LimitTable = Readonly<Record<string, FieldLimit>>;

/** Ids built from session ids (event, message, child, session ids). */
const ID = 1024;
/** Short metadata: names, kinds, models, providers. */
const NAME = 256;
const HASH = 64;
/** Prose the system or an agent writes about something (reasons, refusals, errors). */
const REASON = 8_000;

/**
 * Values a model reads in its prompt (tasks, answers, messages) stay whole inline up to this, the
 * daemon's limit for a user's task or message too; past it the prompt shows a preview.
 */
const PROMPT_TEXT = 100_000;

/** How much of each agent-sized value is kept inline; the rest is in the blob store. */
export const INLINE = {
  answer: PROMPT_TEXT,
  task: PROMPT_TEXT,
  message: PROMPT_TEXT,
  code: 8_192,
  output: 12_000,
  response: 32_768,
  errorValue: REASON,
  evidence: REASON,
} as const;

/** Hard limits on small values the agent writes: past them the call is refused in the cell. */
export const HARD = {
  name: NAME,
  recipient: ID,
  objective: 4_000,
  scheduleSpec: NAME,
  instruction: 4_000,
  jobCommand: 8_000,
  /** research.trial/submit(idea=) and ledger.annotate(note): a name and a few lines, not a notebook. */
  idea: 2_000,
} as const;

/** Seeds one job may run (JobQueued.seeds); past it jobs.submit is refused in the cell. */
export const JOB_SEEDS = 1_000;
/** How much of a job's output its JobEnded keeps; the whole is in the job's log on its host. */
export const JOB_LOG_TAIL = 4_000;

/** Changed files one WorkspaceChanged lists; the diff blob holds every text change beyond them. */
export const WORKSPACE_FILES = 100;

const BLOB: FieldLimit = { fields: { sha256: HASH } };
const NAMED_REASONS: FieldLimit = { fields: { name: NAME, reason: 300 } };

export const ENVELOPE_LIMITS = {
  eventId: ID + 24, sessionId: ID, rootId: ID, parentId: ID, type: NAME, prevHash: HASH, hash: HASH, traceId: 32, spanId: 16,
  keyId: 32, signature: 128,
} as const satisfies LimitTable;

export const FIELD_LIMITS = {
  ApprovalDecided: { approvalId: ID + 24, by: NAME, reason: 2_000 },
  NetworkConnection: { host: NAME, address: HASH, policy: 2_000, approvalId: ID + 24, reason: 2_000 },
  ApprovalRequested: { kind: NAME, detail: 2_000, requestedBy: ID, evidence: { items: 20, of: ID + 24 } },
  BudgetSet: { note: 1_000 },
  CellExecuted: {
    requestId: ID, code: INLINE.code, outputs: INLINE.output, outputsBlob: BLOB, errorName: NAME,
    errorValue: INLINE.errorValue, traceback: INLINE.output,
  },
  CellRequested: { cellId: ID, code: INLINE.code, codeBlob: BLOB, toolCallId: NAME },
  Compacted: { summary: 32_768 },
  ContinuationInjected: { text: REASON },
  ForkedFrom: { originSessionId: ID, originHash: HASH, model: NAME, instructionMessageId: ID, children: { items: 100, of: ID } },
  GateChecked: { command: 4_000, output: REASON },
  GoalChanged: { objective: HARD.objective, reason: INLINE.evidence },
  HarnessEditRequested: { op: NAME, editIds: { items: 100, of: ID } },
  HarnessEdited: {
    action: NAME, kind: NAME, name: NAME, before: 72_000, after: 72_000,
    trigger: { fields: { eventIds: { items: 20, of: ID }, reason: 2_000 } },
    source: NAME, requestedBy: ID, result: NAME, error: 2_000, revertOf: ID, refineId: ID,
  },
  KernelRestored: {
    manifest: BLOB, restored: { items: 300, of: 128 }, failed: { items: 50, of: NAMED_REASONS },
    replayedCells: { items: 50, of: ID + 24 }, interruptedCell: ID + 24,
  },
  KernelSnapshotted: {
    manifest: BLOB, unsaved: { items: 200, of: NAMED_REASONS }, oversize: { items: 200, of: { fields: { name: NAME } } },
  },
  // Room for the `[answer from <name>] ` a child's outcome message starts with.
  MessageDelivered: { messageId: ID, from: ID, to: ID, text: INLINE.message + 200 },
  MessageRefused: { from: ID, to: HARD.recipient, reason: 2_000 },
  MessageSent: { messageId: ID, from: ID, to: ID, text: INLINE.message, textBlob: BLOB },
  ModelSwitched: { model: NAME, previous: NAME },
  ModelThrottled: { provider: NAME, model: NAME, reason: 2_000, idempotencyKey: ID },
  JobEnded: { jobId: NAME, logTail: JOB_LOG_TAIL, reason: 2_000 },
  // A seed is a number: `of` is no string's limit here, only the item count holds.
  JobQueued: { jobId: NAME, command: HARD.jobCommand, seeds: { items: JOB_SEEDS, of: 0 }, executor: NAME },
  JobPreempted: { jobId: NAME, reason: 2_000, slurmId: NAME },
  JobStarted: { jobId: NAME, hostId: NAME },
  ExperimentRecorded: {
    jobId: NAME, idea: HARD.idea, file: HARD.idea, source: BLOB, parent: NAME, problem: NAME, configHash: HASH, frozenHash: HASH, reason: 2_000, by: ID,
    seeds: { items: JOB_SEEDS, of: 0 }, values: { items: JOB_SEEDS, of: 0 },
  },
  ExperimentAnnotated: { jobId: NAME, note: HARD.idea, by: ID },
  RecordReleased: { recordId: NAME, config: HARD.instruction, note: HARD.idea },
  RecordAccepted: { jobId: NAME, configHash: HASH, previousId: NAME },
  RecordRejected: { jobId: NAME, reason: 2_000, previousId: NAME },
  ReplyRejected: { note: 2_000 },
  ModelCalled: {
    model: NAME, provider: NAME, response: INLINE.response, responseBlob: BLOB,
    // A tool call's arguments are JSON of the (preview) code: at most 6 characters per escaped character.
    toolCalls: { items: 2, of: { fields: { id: NAME, name: NAME, arguments: 6 * INLINE.code + 64 } } },
    stopReason: NAME, requestBlob: BLOB,
    contextFiles: { items: 2, of: { fields: { path: NAME, sha256: HASH, shown: BLOB } } },
  },
  ScheduleChanged: { scheduleId: NAME, spec: HARD.scheduleSpec, instruction: HARD.instruction },
  ScheduleFired: { scheduleId: NAME, instruction: HARD.instruction },
  SessionClosed: { reason: 2_000 },
  SessionCompleted: { answer: INLINE.answer, answerBlob: BLOB },
  SessionFailed: { reason: REASON, error: REASON },
  SessionPlaced: { hostId: NAME },
  SessionReloaded: { messageId: ID, from: ID },
  SessionResumed: { messageId: ID, from: ID },
  SessionStarted: { task: INLINE.task, taskBlob: BLOB, name: NAME, model: NAME, parentId: ID, systemPromptBlob: BLOB, sandbox: { fields: { mode: NAME, net: NAME } }, research: { fields: { task: NAME, knowledge: NAME, recordId: NAME } } },
  SessionUnloaded: { manifest: BLOB },
  SpawnRefused: { name: NAME, reason: 2_000 },
  SubagentCompleted: { childId: ID, answer: INLINE.answer, answerBlob: BLOB, error: REASON },
  SubagentSpawned: { childId: ID, name: NAME, task: INLINE.task, taskBlob: BLOB, model: NAME, spec: NAME, requestId: ID },
  SubagentTasked: { childId: ID, name: NAME, task: INLINE.task, taskBlob: BLOB, messageId: ID, requestId: ID },
  TaskEnded: { answer: INLINE.answer, reason: REASON },
  GitOperation: { branch: NAME, previous: HASH, commit: HASH, message: 4_000, files: { items: 200, of: 512 } },
  WorkspaceMerged: { childId: ID, files: { items: 200, of: 512 }, base: HASH, result: HASH },
  WorkspaceChanged: {
    workspace: 4_096, requestId: ID, baseManifest: BLOB, manifest: BLOB, diff: BLOB, netDiff: BLOB,
    files: { items: WORKSPACE_FILES, of: { fields: { path: ID, oldHash: HASH, newHash: HASH, kind: 16, sensitive: NAME } } },
    ignored: { fields: {} }, git: { fields: { head: HASH, branch: NAME } },
  },
} as const satisfies Record<EventType, LimitTable>;

/** Cuts at most `max` UTF-16 units without splitting a surrogate pair. */
export function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return text.slice(0, end);
}

/** `text` within `max` characters; a cut one ends in a note saying how long it was. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = `…[cut: ${text.length} characters, ${max} kept]`;
  return note.length >= max ? cutChars(text, max) : cutChars(text, max - note.length) + note;
}

/**
 * For a field with no BlobRef beside it (MessageDelivered.text, TaskEnded.answer, errorValue,
 * goal evidence): the preview, ending in a note that names the blob holding the whole, within `max`.
 */
export function previewNamingBlob(preview: string, blob: BlobRef | null, max: number): string {
  if (!blob) return clipText(preview, max);
  const note = `\n[cut: the whole is blob ${blob.sha256} (${blob.size} bytes)]`;
  return cutChars(preview, Math.max(max - note.length, 0)) + note;
}

function clipValue(value: unknown, limit: FieldLimit): unknown {
  if (typeof value === 'string') return typeof limit === 'number' ? clipText(value, limit) : value;
  if (Array.isArray(value) && typeof limit === 'object' && 'items' in limit) {
    // Items past the count are dropped: the full list lives elsewhere (a manifest, the scope's log).
    return value.slice(0, limit.items).map((item: unknown) => clipValue(item, limit.of));
  }
  if (value && typeof value === 'object' && typeof limit === 'object' && 'fields' in limit) {
    return clipFields(value as Record<string, unknown>, limit.fields);
  }
  return value;
}

function clipFields(value: Record<string, unknown>, table: LimitTable): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = key in table ? clipValue(v, table[key]) : v;
  return out;
}

/** The event with every inline string held to its limit (over-long arrays cut to their count). Pure. */
export function clipEvent(event: RecurEventInput): RecurEventInput {
  const table = (FIELD_LIMITS as Record<string, LimitTable | undefined>)[event.type];
  return table ? (clipFields(event as unknown as Record<string, unknown>, table) as unknown as RecurEventInput) : event;
}
