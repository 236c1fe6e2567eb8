import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { AppendEventsInput } from '../../activities/event-log';

/**
 * Each batch of a session's events in its workflow's history, with the activity that wrote it:
 * `appendEvents`, or one that carried it before its work (SessionLog.ride).
 */
export function carriedBatches(history: temporal.api.history.v1.IHistory): Array<{ by: string; types: string[] }> {
  return (history.events ?? []).flatMap((e) => {
    const at = e.activityTaskScheduledEventAttributes;
    if (!at) return [];
    const given = defaultPayloadConverter.fromPayload<AppendEventsInput & { append?: AppendEventsInput }>(at.input!.payloads![0]);
    const batch = at.activityType?.name === 'appendEvents' ? given : given.append;
    return batch ? [{ by: at.activityType?.name ?? '', types: batch.events.map((x): string => x.event.type) }] : [];
  });
}
