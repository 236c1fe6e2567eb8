import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';

/** Reading a workflow's Temporal history for the server's own timestamps of what it did. */
export type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/** An event's server time in epoch ms. */
export const eventMs = (e: HistoryEvent) => (e.eventTime?.seconds ? Number(e.eventTime.seconds) * 1000 : 0) + (e.eventTime?.nanos ?? 0) / 1e6;

export async function history(client: Client, id: string): Promise<HistoryEvent[]> {
  return (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
}

/** Polls the workflow's history until `ready` holds, failing after `timeoutMs`. */
export async function until<T>(client: Client, id: string, timeoutMs: number, ready: (events: HistoryEvent[]) => T | null): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(100)) {
    const got = ready(await history(client, id));
    if (got !== null) return got;
  }
  throw new Error(`workflow ${id} made no progress in ${timeoutMs / 1000} s`);
}

/** The ActivityTaskCompleted events of activities of `type`, in history order. */
export function completions(events: HistoryEvent[], type: string): HistoryEvent[] {
  const scheduled = new Set(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type).map((e) => Number(e.eventId)));
  return events.filter((e) => scheduled.has(Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? -1)));
}

/** Server time at which the first `type` activity completed after event `afterId`, or null. */
export function completedAfter(events: HistoryEvent[], type: string, afterId: number): number | null {
  const done = completions(events, type).find((e) => Number(e.eventId) > afterId);
  return done ? eventMs(done) : null;
}
