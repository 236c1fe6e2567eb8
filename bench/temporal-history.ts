import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';

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

/** What an activity's input or result says of the events it appends (activities/append-first.ts, activities/event-log.ts). */
interface Appends {
  /** A carrier's batch, or appendEvents' input itself. */
  append?: { fromSeq: number; events: unknown[] } | null;
  fromSeq?: number;
  events?: unknown[];
  /** A carrier's result, or appendEvents' result itself. */
  appended?: { nextSeq: number } | null;
  nextSeq?: number;
}

type Payloads = NonNullable<HistoryEvent['activityTaskCompletedEventAttributes']>['result'];

/** An activity's first argument or its result, decoded as the worker's converter encoded it. */
function payload(p: Payloads): Appends {
  const first = p?.payloads?.[0];
  return (first && defaultPayloadConverter.fromPayload<Appends | null | undefined>(first)) ?? {};
}

/** seq after the batch an activity's input appends, or -1. */
function batchEnd(input: Appends): number {
  const batch = input.append ?? (input.fromSeq !== undefined && input.events ? { fromSeq: input.fromSeq, events: input.events } : null);
  return batch ? batch.fromSeq + batch.events.length : -1;
}

/**
 * Server time of the first activity completed after event `afterId` that logged an event no
 * activity scheduled up to `afterId` carried, or null. Whoever writes it: an append of its own
 * or a carrier (a model call, a cell). A retried carrier that writes its batch again does not count.
 */
export function newEventLoggedAfter(events: HistoryEvent[], afterId: number): number | null {
  const scheduled = events.filter((e) => Number(e.eventId) <= afterId && e.activityTaskScheduledEventAttributes);
  const carried = Math.max(-1, ...scheduled.map((e) => batchEnd(payload(e.activityTaskScheduledEventAttributes?.input))));
  const done = events.find((e) => {
    const a = e.activityTaskCompletedEventAttributes;
    if (!a || Number(e.eventId) <= afterId) return false;
    const r = payload(a.result);
    return (r.appended?.nextSeq ?? r.nextSeq ?? -1) > carried;
  });
  return done ? eventMs(done) : null;
}
