import type { BlobRef, CellExecuted, CellStatus, StoredEvent } from '../schemas';

/** One logged cell to run again, with what the log says it did. */
export interface PlannedCell {
  readonly sessionId: string;
  /** eventId of the CellExecuted being checked. */
  readonly eventId: string;
  readonly requestId: string;
  /** The source as logged inline (a preview when codeBlob is set). */
  readonly code: string;
  /** The full source when it did not fit inline; replay runs this. */
  readonly codeBlob: BlobRef | null;
  readonly logged: CellExecuted;
  readonly timeoutSeconds: number;
  /** Why the cell is not run again, or null to run it. */
  readonly skip: string | null;
}

/** What a cell did, as the log records it or as a replay saw it; `output` is the whole text. */
export interface CellOutcome {
  readonly status: CellStatus;
  readonly output: string;
  readonly errorName: string | null;
  readonly errorValue: string | null;
}

export type CellVerdict =
  | { readonly kind: 'same' }
  | { readonly kind: 'differs'; readonly detail: string }
  /** The cell called the host (rlm, agent_message, final), which a replay kernel cannot reach. */
  | { readonly kind: 'host-call'; readonly detail: string };

/** Fallback timeout when a session's SessionStarted is missing from the log. */
const DEFAULT_TIMEOUT_SECONDS = 600;
/** What the kernel package raises for a host call in a kernel bound to no host (kernel/recur_kernel/_session.py). */
const HOST_CALL_FAILURE = 'this kernel is not connected to a Recur host';
/** The notice run-cell.ts puts before a cell's output when the kernel had been restarted or restored (restoreNote). */
const RESTART_NOTE = /^\[(note: your kernel was restarted before this cell|your kernel (was lost|was unloaded|has been restored))[^\n]*\]\n/;

/** Each CellExecuted of one session, in seq order, with the code its CellRequested asked to run. */
export function planCellReplay(events: readonly StoredEvent[]): PlannedCell[] {
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  const started = sorted.find((e) => e.event.type === 'SessionStarted')?.event;
  const timeoutSeconds = started?.type === 'SessionStarted' ? started.cellTimeoutSeconds : DEFAULT_TIMEOUT_SECONDS;
  const requests = new Map(sorted.flatMap((e) => (e.event.type === 'CellRequested' ? [[e.eventId, e.event] as const] : [])));
  return sorted.flatMap((e) => {
    if (e.event.type !== 'CellExecuted') return [];
    const request = requests.get(e.event.requestId);
    return [{
      sessionId: e.sessionId, eventId: e.eventId, requestId: e.event.requestId,
      code: request?.code ?? e.event.code, codeBlob: request?.codeBlob ?? null, logged: e.event, timeoutSeconds,
      // Its effect on the lost kernel is unknown, and the logged run did not repeat it either.
      skip: e.event.status === 'interrupted' ? 'interrupted in the logged run; not re-run' : null,
    }];
  });
}

/** Trailing whitespace of every line, and trailing blank lines, do not count. */
export function normaliseOutput(text: string): string {
  return text.split('\n').map((line) => line.trimEnd()).join('\n').trimEnd();
}

function firstDifference(expected: string, actual: string): string {
  const [a, b] = [expected.split('\n'), actual.split('\n')];
  const i = a.findIndex((line, n) => line !== b[n]);
  const line = i < 0 ? a.length : i;
  const show = (s: string | undefined) => (s === undefined ? '(nothing)' : JSON.stringify(s.length > 80 ? `${s.slice(0, 79)}…` : s));
  return `output line ${line + 1}: logged ${show(a[line])}, replay ${show(b[line])}`;
}

/**
 * Compares a replayed cell with its log entry (`logged.output` is the full logged text: the blob's
 * content when the output was stored as a blob). Status, error class and normalised output must match.
 */
export function compareCell(logged: CellOutcome, replay: CellOutcome): CellVerdict {
  if (`${replay.output}\n${replay.errorValue ?? ''}`.includes(HOST_CALL_FAILURE)) return { kind: 'host-call', detail: 'not replayable (host call)' };
  if (logged.status !== replay.status) return { kind: 'differs', detail: `status: logged ${logged.status}, replay ${replay.status}` };
  if (logged.status === 'error' && logged.errorName !== replay.errorName) {
    return { kind: 'differs', detail: `error: logged ${logged.errorName}, replay ${replay.errorName}` };
  }
  const [a, b] = [normaliseOutput(logged.output.replace(RESTART_NOTE, '')), normaliseOutput(replay.output)];
  return a === b ? { kind: 'same' } : { kind: 'differs', detail: firstDifference(a, b) };
}
