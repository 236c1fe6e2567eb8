import type { AppendEventsInput, AppendEventsResult } from './event-log';

/** A batch an activity appends before its own work (workflows/session-log.ts `ride`). */
export interface RidingAppend {
  append?: AppendEventsInput | null;
}

export interface AppendedFirst {
  /** What the ridden append wrote; null when the input carried none. */
  appended?: AppendEventsResult | null;
}

/**
 * `fn` preceded by the append its input carries. The batch, its timestamps included, is fixed in
 * the activity's input, so every attempt writes the same bytes, which readers drop as duplicates;
 * the work starts only once the batch is in the log.
 */
export function appendFirst<I, R>(
  appendEvents: (input: AppendEventsInput) => Promise<AppendEventsResult>,
  fn: (input: I) => Promise<R>,
): (input: I & RidingAppend) => Promise<R & AppendedFirst> {
  return async ({ append, ...work }) => {
    const appended = append ? await appendEvents(append) : null;
    return { ...(await fn(work as I)), appended };
  };
}
