/*
 * A sub-agent that completed its task stays addressable, and so does a root started with `retain`
 * (the daemon's default): its workflow waits for a message or a new task, and after `idleUnloadSeconds` with none it snapshots its kernel and shuts it down. The
 * next message reloads it; the kernel itself comes back on the next cell (runCell restores the
 * latest snapshot into a fresh kernel). A host at its loaded-kernel cap may ask an idle, loaded
 * session to unload early (unloadIdleSignal); it goes the same way. Deterministic workflow code:
 * timers and activities only.
 */
import { condition, getExternalWorkflowHandle, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { decideIdleUnload } from './decide-idle-unload';
import { endTask } from './end-session';
import { deliverMessageSignal, type SpawnReply, type SpawnRequest } from './messages';
import type { sessionActivities } from './proxies';
import type { SessionState } from './session-state';
import type { ChildInfo } from './child-types';
import type { RetainState, SessionResult } from './session-types';
import { snapshotKernel } from './snapshot-kernel';
import { logWorkspace } from './workspace-log';

type Acts = ReturnType<typeof sessionActivities>;

/**
 * Ends a piece of work without ending the session: it is logged, running children stop, and the
 * session idles. When the end could not be logged as it was (null, or a fallback failure), the
 * session is not retained: that logged end is its last, and the caller ends it.
 */
export async function retain(s: SessionState, r: SessionResult, acts: Acts): Promise<SessionResult | null> {
  // A root's answer is what its user reads its net change at (`recur diff`): each round ends with an end scan.
  if (s.input.parentId === null) await logWorkspace(s, acts, 'end').catch(() => undefined);
  const logged = await endTask(s, r);
  if (logged !== r) return logged;
  for (const child of s.children.values()) {
    if (child.status !== 'running') continue;
    // Marked first, so the stopped child's outcome is not taken for a message that wakes this session.
    child.status = 'cancelled';
    await getExternalWorkflowHandle(child.id).cancel().catch(() => undefined);
  }
  s.retained = { round: s.retained?.round ?? 0, idle: true, idleSince: Date.now(), unloadedSeq: null };
  return r;
}

/**
 * Waits, retained, for a message or a task, unloading the kernel once the idle limit passes with
 * none (a durable timer). 'work' when the inbox has something (reloaded first if unloaded);
 * 'continue' when the history asks for continue-as-new (the idle clock is carried).
 */
export async function awaitWork(s: SessionState, r: RetainState, acts: Acts): Promise<'work' | 'continue'> {
  // An ask that arrives while the unload is under way is spent: it must not wake an unloaded session.
  const asked = () => !!r.unloadAsked && r.unloadedSeq === null;
  const ready = () => s.inbox.length > 0 || asked() || workflowInfo().continueAsNewSuggested;
  for (;;) {
    s.phase = r.unloadedSeq === null ? 'idle' : 'unloaded';
    listPhase(s.phase);
    const next = decideIdleUnload(r, Date.now(), s.input.limits.idleUnloadSeconds);
    if (next.kind === 'unload') await unload(s, r, acts, next.idleSeconds);
    else if (next.ms === null) await condition(ready);
    else await condition(ready, next.ms);
    if (s.inbox.length > 0) return wake(s, r);
    if (workflowInfo().continueAsNewSuggested) return 'continue';
  }
}

/** Snapshots the namespace (unless no cell ran since the last snapshot), then frees the kernel. */
async function unload(s: SessionState, r: RetainState, acts: Acts, idleSeconds: number): Promise<void> {
  // Asked once: a host that still needs the kernel after a failed snapshot asks again.
  r.unloadAsked = false;
  if (s.cellsSinceSnapshot > 0 && !(await snapshotKernel(s, acts, s.nextSeq - 1))) {
    // Shutting down now would lose what the snapshot missed; keep the kernel and try after another idle period.
    r.idleSince = Date.now();
    return;
  }
  await acts.shutdownKernel({ sessionId: s.id });
  const snap = s.lastSnapshot;
  r.unloadedSeq = await s.emit(() => [{
    type: 'SessionUnloaded', manifest: snap?.manifest ?? null, coversSeq: snap?.coversSeq ?? null,
    idleSeconds,
  }]);
}

/** What a listing (`recur ls`) shows without querying each session: a retained one's idle phase, in its memo. */
function listPhase(phase: 'idle' | 'unloaded' | null): void {
  if ((workflowInfo().memo?.phase ?? null) !== phase) upsertMemo({ phase: phase ?? undefined });
}

async function wake(s: SessionState, r: RetainState): Promise<'work'> {
  listPhase(null);
  const [first] = s.inbox;
  const { unloadedSeq } = r;
  const round = r.round + 1;
  // A root's user is outside every session log: its own log says what woke it.
  const resumed = s.input.parentId === null ? [{
    type: 'SessionResumed' as const, messageId: first.messageId, from: first.from, round, unloaded: unloadedSeq !== null,
    idleSeconds: Math.floor((Date.now() - r.idleSince) / 1000),
  }] : [];
  const reloaded = unloadedSeq !== null ? [{ type: 'SessionReloaded' as const, messageId: first.messageId, from: first.from, unloadedSeq }] : [];
  if (reloaded.length + resumed.length > 0) await s.emit(() => [...reloaded, ...resumed]);
  r.unloadedSeq = null;
  r.round = round;
  r.idle = false;
  r.unloadAsked = false;
  const task = [...s.inbox].reverse().find((m) => m.task);
  if (task) r.taskMessageId = task.messageId;
  s.final = null;
  return 'work';
}

/**
 * `rlm(task, name=n)` for a child that completed its task gives it this new task, as a message
 * from the parent; the handle's result() then waits for the answer to it. Sent in turn with every
 * append: the child is marked running (and the counter moves) once SubagentTasked is logged,
 * before its answer can be taken (childFinished decides in turn too).
 */
export async function retask(s: SessionState, child: ChildInfo, req: SpawnRequest): Promise<SpawnReply> {
  if (child.status === 'running') return { ok: false, reason: `a child named "${child.name}" already exists with another task` };
  if (child.status !== 'completed') return { ok: false, reason: `"${child.name}" has ended (${child.status}) and cannot take a new task` };
  const taskBlob = req.taskBlob ?? null;
  let messageId = '';
  let sent = false;
  await s.emit(async () => {
    messageId = `${s.id}#m${s.messagesSent + 1}`;
    try {
      await getExternalWorkflowHandle(child.id).signal(deliverMessageSignal, { messageId, from: s.id, text: `[new task] ${req.task}`, textBlob: taskBlob, task: true });
    } catch {
      return [];
    }
    sent = true;
    return [{ type: 'SubagentTasked', childId: child.id, name: child.name, task: req.task, taskBlob, messageId, requestId: req.requestId }];
  }, () => {
    if (!sent) return;
    s.messagesSent++;
    Object.assign(child, { task: req.task, taskBlob, status: 'running', answer: null, answerBlob: null, error: null, taskMessageId: messageId });
  });
  return sent ? { ok: true, childId: child.id, name: child.name } : { ok: false, reason: `${child.id} has ended and cannot take a new task` };
}
