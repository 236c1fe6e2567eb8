import type { RecurEvent, StoredEvent } from '../../schemas';
import type { ProblemFrame } from '../daemon/api-types';

/** Longest fact (task, output line, answer...) shown on an event line. */
const MAX_FACT = 100;

/** A root id's random tail tells roots apart well enough on screen; child names stay whole. */
export function shortSessionId(id: string): string {
  if (id === 'user') return id;
  const [root, ...rest] = id.split('/');
  return [root.length > 8 ? root.slice(-6) : root, ...rest].join('/');
}

/** The first non-blank line, cut to `max` characters; `…` marks anything left out. */
export function firstLine(text: string, max = MAX_FACT): string {
  const lines = text.split('\n').map((l) => l.trimEnd());
  const first = lines.find((l) => l.trim() !== '')?.trim() ?? '';
  const more = lines.filter((l) => l.trim() !== '').length > 1;
  if (first.length > max) return `${first.slice(0, max - 1)}…`;
  return more ? `${first} …` : first;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;
const quoted = (text: string): string => JSON.stringify(firstLine(text));
/** A research call a sub-agent made on the root's ledger names it; the root's own need no name. */
const asker = (by: string | null): string => (by?.includes('/') ? ` by ${by}` : '');
/** `: a, b, c +2 more` for the first paths of `total`, or nothing when there are none. */
const someOf = (files: readonly string[], total: number): string =>
  (total ? `: ${files.slice(0, 5).join(', ')}${total > 5 ? ` +${total - 5} more` : ''}` : '');

/** The key facts of one event, without the session, seq and type a line puts before them. */
export function eventFacts(e: RecurEvent): string {
  switch (e.type) {
    case 'SessionStarted':
      return `${e.name} ${e.model} depth ${e.depth}: ${quoted(e.task)}`;
    case 'ModelCalled': {
      const what = e.toolCalls.length > 0 ? `${e.toolCalls.length} tool call${e.toolCalls.length > 1 ? 's' : ''}` : quoted(e.response);
      return `turn ${e.turn} ${e.provider}/${e.model} ${e.tokensIn}+${e.tokensOut} tok $${e.costUsd.toFixed(4)} ${seconds(e.latencyMs)} → ${what}`;
    }
    case 'CellRequested':
      return quoted(e.code);
    case 'CellExecuted': {
      const error = e.errorName ? ` ${e.errorName}: ${firstLine(e.errorValue ?? '', 60)}` : '';
      const output = e.outputs.trim() ? ` → ${quoted(e.outputs)}` : '';
      return `${e.status} ${seconds(e.durationMs)}${error}${output}`;
    }
    case 'SubagentSpawned':
      return `${e.name} (${e.model}): ${quoted(e.task)}`;
    case 'SubagentCompleted':
      return `${shortSessionId(e.childId)} ${e.status}: ${e.status === 'completed' ? quoted(e.answer) : firstLine(e.error ?? '')}`;
    case 'MessageSent':
      return `${shortSessionId(e.from)} → ${shortSessionId(e.to)}: ${quoted(e.text)}`;
    case 'MessageDelivered':
      return `${shortSessionId(e.from)} → ${shortSessionId(e.to)} via ${e.via}: ${quoted(e.text)}`;
    case 'MessageRefused':
      return `${shortSessionId(e.from)} → ${e.to} refused: ${firstLine(e.reason)}`;
    case 'SessionCompleted':
      return `answer: ${quoted(e.answer)}`;
    case 'SessionFailed':
      return `${e.kind}: ${firstLine(e.reason)}`;
    case 'GoalChanged':
      return `${e.change} → ${e.status}${e.openEnded ? ' (open-ended)' : ''} ${e.tokensUsed} tok: ${quoted(e.reason ?? e.objective)}`;
    case 'BudgetSet': {
      const parts = [e.tokens !== null && `${e.tokens} tok`, e.costUsd !== null && `$${e.costUsd}`, e.seconds !== null && `${e.seconds}s`, e.turns !== null && `${e.turns} turns`];
      return `${e.scope} budget ${parts.filter(Boolean).join(', ') || 'unlimited'}: ${firstLine(e.note)}`;
    }
    case 'ContinuationInjected':
      return `#${e.count} ${e.reason}`;
    case 'ReplyRejected':
      return `${e.problem} (${e.inARow} in a row): ${firstLine(e.note)}`;
    case 'ScheduleChanged':
      return `${e.scheduleId} ${e.change} ${JSON.stringify(e.spec)}: ${quoted(e.instruction)}`;
    case 'ScheduleFired':
      return `${e.scheduleId} run ${e.runCount}${e.missed ? ` (+${e.missed} missed)` : ''}: ${quoted(e.instruction)}`;
    case 'GateChecked':
      return `${e.passed ? 'passed' : `failed (${e.exitCode ?? 'killed'})`} ${seconds(e.durationMs)}: ${quoted(e.command)}`;
    case 'Compacted':
      return `${e.manual ? 'manual ' : ''}seq ${e.fromSeq}-${e.toSeq} (${e.droppedTurns} turns, ${e.droppedChars} chars) → ${e.tokensBefore}→${e.tokensAfter} tok`;
    case 'TaskEnded':
      return `round ${e.round} ${e.status}: ${e.status === 'completed' ? `answer: ${quoted(e.answer ?? '')}` : firstLine(e.reason ?? '')}`;
    case 'SessionResumed':
      return `round ${e.round} by ${shortSessionId(e.from)} ${e.messageId} after ${e.idleSeconds}s idle${e.unloaded ? ' (kernel reloaded)' : ''}`;
    case 'SessionClosed':
      return `after round ${e.round}${e.idle ? ' (idle)' : ''}: ${firstLine(e.reason)}`;
    case 'ModelSwitched':
      return `${e.previous} → ${e.model}${e.reason === 'backup' ? ` (backup, after ${seconds(e.throttledMs)} throttled)` : ''}`;
    case 'ModelThrottled':
      return `${e.model} HTTP ${e.status}, waits ${seconds(e.waitMs)} until ${new Date(e.resetAt).toISOString()} (attempt ${e.attempt}): ${quoted(e.reason)}`;
    case 'ApprovalRequested':
      return `${e.kind} waits for an operator (recur approve|deny <id>): ${quoted(e.detail)}`;
    case 'WorkspaceChanged':
      return workspaceFacts(e);
    case 'ApprovalDecided':
      return `${e.approvalId} ${e.decision} by ${e.by}${e.reason ? `: ${firstLine(e.reason)}` : ''}`;
    case 'ForkedFrom':
      return `fork of ${shortSessionId(e.originSessionId)} at #${e.originSeq} → ${e.model}${e.snapshotSeq === null ? '' : `, kernel from the snapshot at #${e.snapshotSeq}`}${e.children.length ? ` (${e.children.length} sub-agent(s) not forked)` : ''}`;
    case 'WorkspaceMerged':
      return `${e.childId} ${e.status}${someOf(e.files, e.files.length)}`;
    case 'GitOperation':
      return e.op === 'commit'
        ? (e.changed ? `commit ${(e.commit ?? '').slice(0, 7)} on ${e.branch ?? 'a detached HEAD'} ${quoted(e.message ?? '')}${someOf(e.files, e.filesTotal)}` : 'nothing to commit')
        : `branch ${e.branch ?? '?'}${e.changed ? ` at ${(e.commit ?? '').slice(0, 7)}` : ' (already checked out)'}`;
    case 'SubagentTasked':
      return `${e.name}: ${quoted(e.task)}`;
    case 'SpawnRefused':
      return `${e.name} at ${e.limit}: ${firstLine(e.reason)}`;
    case 'KernelSnapshotted':
      return `${e.variables} variable${e.variables === 1 ? '' : 's'} ${e.bytes} bytes covers #${e.coversSeq}${e.unsaved.length + e.oversize.length ? ` (${e.unsaved.length + e.oversize.length} left out)` : ''}`;
    case 'KernelRestored':
      return `${e.restored.length} restored${e.failed.length ? `, ${e.failed.length} failed` : ''}, ${e.replayedCells.length} cell(s) replayed ${seconds(e.durationMs)}`;
    case 'SessionUnloaded':
      return `after ${e.idleSeconds}s idle${e.coversSeq === null ? '' : `, snapshot covers #${e.coversSeq}`}`;
    case 'SessionReloaded':
      return `by ${shortSessionId(e.from)} ${e.messageId}`;
    case 'JobQueued':
      return `${e.jobId} ${e.cpus} cpu${e.seeds.length ? ` seeds ${e.seeds.join(',')}` : ''}${e.timeoutSeconds === null ? '' : ` timeout ${e.timeoutSeconds}s`}: ${quoted(e.command)}`;
    case 'JobStarted':
      return `${e.jobId} on ${e.hostId}`;
    case 'JobPreempted':
      return `${e.jobId}${e.slurmId === null ? '' : ` (slurm ${e.slurmId})`} ${e.requeued ? 'requeued' : 'not requeued'}: ${firstLine(e.reason)}`;
    case 'JobEnded':
      return `${e.jobId} ${e.outcome}${e.exitCode === null ? '' : ` (exit ${e.exitCode})`} ${e.seconds.toFixed(1)}s${e.reason ? `: ${firstLine(e.reason)}` : ''}`;
    case 'ExperimentRecorded':
      return `${e.jobId} ${e.kind} ${e.status}${e.steps === null ? '' : ` steps ${e.steps}`}${e.mean === null ? '' : ` mean ${e.mean.toFixed(5)} over ${e.values.length}`}${e.promising ? ' promising' : ''}${asker(e.by)}: ${quoted(e.idea || e.reason)}`;
    case 'RecordAccepted':
      return `${e.jobId} ${e.steps} steps mean ${e.mean.toFixed(5)} beats ${e.previousId} (${e.previousSteps} steps), pairwise ${e.pairwiseScore.toFixed(4)}${e.scaleUp ? `, scale-up ${e.scaleUp.ratioLarge?.toFixed(3)} ≤ ${e.scaleUp.ratioSmall.toFixed(3)}+0.05` : ''}`;
    case 'RecordRejected':
      return `${e.jobId}${e.steps === null ? '' : ` ${e.steps} steps`}${e.mean === null ? '' : ` mean ${e.mean.toFixed(5)}`} vs ${e.previousId}: ${firstLine(e.reason)}`;
    case 'ExperimentAnnotated':
      return `${e.jobId}${asker(e.by)}: ${quoted(e.note)}`;
    case 'RecordReleased':
      return `${e.recordId} ${e.steps} steps mean ${e.mean.toFixed(5)} at +${e.releaseAfterSeconds}s${e.inForce ? ', in force' : ''}`;
    case 'HarnessEdited':
      return `${e.action} ${e.kind} ${e.name} ${e.result} by ${e.source}${e.error ? `: ${firstLine(e.error)}` : ''}`;
    default:
      return genericFacts(e as unknown as Record<string, unknown>); // a type newer than this CLI
  }
}

/** `cell 3 files +12 -4 (2 sensitive, 1 git-meta, 1 over cap) hash 1a2b3c4d5e6f git main@abc1234 dirty 2`. */
function workspaceFacts(e: Extract<RecurEvent, { type: 'WorkspaceChanged' }>): string {
  const added = e.files.reduce((n, f) => n + f.linesAdded, 0);
  const deleted = e.files.reduce((n, f) => n + f.linesDeleted, 0);
  const what = e.baseManifest === null ? 'baseline' : `${e.filesTotal} file${e.filesTotal === 1 ? '' : 's'} +${added} -${deleted}`;
  // Changes that run later outside Recur come first in the list, so the listed ones count them all.
  const sensitive = e.files.filter((f) => f.kind === 'file' && f.sensitive !== null).length;
  const gitMeta = e.files.filter((f) => f.kind === 'git-meta').length;
  const notes = [sensitive && `${sensitive} sensitive`, gitMeta && `${gitMeta} git-meta`, e.overCapFiles && `${e.overCapFiles} over cap`].filter(Boolean);
  const noted = notes.length ? ` (${notes.join(', ')})` : '';
  const git = e.git ? ` git ${e.git.branch ?? 'detached'}@${e.git.head?.slice(0, 7) ?? 'none'}${e.git.dirtyPaths ? ` dirty ${e.git.dirtyPaths}` : ' clean'}` : '';
  return `${e.reason} ${what}${noted} hash ${e.manifest.sha256.slice(0, 12)}${git}`;
}

/** Fields of an event type this CLI has no case for, `name=value`, so a new type still reads. */
function genericFacts(e: Record<string, unknown>): string {
  const shown = Object.entries(e).flatMap(([k, v]) => {
    if (k === 'type' || v === null || v === undefined) return [];
    if (typeof v === 'string') return [`${k}=${JSON.stringify(firstLine(v, 40))}`];
    if (typeof v === 'number' || typeof v === 'boolean') return [`${k}=${v}`];
    if (Array.isArray(v)) return [`${k}=[${v.length}]`];
    const sha = (v as { sha256?: unknown }).sha256;
    return typeof sha === 'string' ? [`${k}=blob:${sha.slice(0, 12)}`] : [`${k}={…}`];
  });
  return firstLine(shown.join(' '), 2 * MAX_FACT);
}

/** One readable line per event: `<short session id> #<seq> <Type>  <key facts>`. */
export function formatEventLine(stored: StoredEvent): string {
  const detail = eventFacts(stored.event);
  return `${shortSessionId(stored.sessionId)} #${stored.seq} ${stored.type}${detail ? `  ${detail}` : ''}`;
}

export function formatProblemLine(p: ProblemFrame): string {
  const where = p.eventId ?? (p.partition !== undefined ? `partition ${p.partition} offset ${p.offset}` : '');
  return `problem (${p.problem})${where ? ` at ${where}` : ''}: ${p.reason}`;
}
