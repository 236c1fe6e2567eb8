/** The fields of the events and results the session loop writes from its input and outcomes. Pure. */
import type { BlobRef } from '../schemas/generated/events';
import type { SessionInput, SessionResult } from './session-types';

/** The ref rides along only when the answer is a preview, so a short answer's result is just its text. */
export const completed = (answer: string, answerBlob: BlobRef | null): SessionResult =>
  ({ status: 'completed', answer, ...(answerBlob && { answerBlob }) });

/** A cell whose run was lost (worker or kernel died): reported, never silently re-run. */
export function interrupted(why: string) {
  return {
    status: 'interrupted' as const, outputs: `[the cell was interrupted and not re-run: ${why}]`,
    durationMs: 0, errorName: 'CellInterrupted', errorValue: why,
  };
}

export function started(input: SessionInput) {
  return {
    type: 'SessionStarted' as const, task: input.task, taskBlob: input.taskBlob ?? null, name: input.name, model: input.model,
    parentId: input.parentId, depth: input.depth, maxDepth: input.limits.maxDepth,
    maxTurns: input.limits.maxTurns, cellTimeoutSeconds: input.limits.cellTimeoutSeconds, sandbox: input.limits.sandbox ?? null,
    research: input.research ? { task: input.research.task, knowledge: input.research.knowledge, recordId: input.research.record.id, recordSteps: input.research.record.steps, recordMean: input.research.record.mean, recordN: input.research.record.n } : null,
  };
}
