import { isSpanContextValid, type SpanContext } from '@opentelemetry/api';
import type { AppendEventsInput } from '../activities/event-log';

/**
 * Stamps each event that carries no trace ids with `span`'s. The caller passes the workflow's
 * span that scheduled the append (it travels in the activity's headers, so every attempt and
 * every replay sees the same one): events are hashed with their ids, and a retried append must
 * write the very bytes of the first. Events that already carry ids, or null for none, keep them:
 * one that rode an activity (SessionLog.ride) may be written by several, all with its ids. Pure.
 */
export function stampEventTrace(input: AppendEventsInput, span: SpanContext | undefined): AppendEventsInput {
  const unstamped = (e: AppendEventsInput['events'][number]) => e.traceId === undefined;
  if (!span || !isSpanContextValid(span) || !input.events.some(unstamped)) return input;
  return {
    ...input,
    events: input.events.map((e) => (unstamped(e) ? { ...e, traceId: span.traceId, spanId: span.spanId } : e)),
  };
}

/** How a batch changes the number of running sessions: +1 per start, -1 per end. Pure. */
export function sessionsDelta(input: Pick<AppendEventsInput, 'events'>): number {
  let delta = 0;
  for (const { event } of input.events) {
    if (event.type === 'SessionStarted') delta += 1;
    else if (event.type === 'SessionCompleted' || event.type === 'SessionFailed') delta -= 1;
  }
  return delta;
}

/** The seq at the end of an event id `<session>/<seq>` (a cell id is its CellRequested event id). */
export function seqOfEventId(eventId: string): number | undefined {
  const m = /\/(\d+)$/.exec(eventId);
  return m ? Number(m[1]) : undefined;
}
