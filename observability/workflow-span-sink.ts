import { createTraceState, type Attributes } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { OpenTelemetrySinks, SerializableSpan } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks } from '@temporalio/worker';
import { ATTR } from './attributes';

/**
 * A span made inside the workflow sandbox, in the OTel 1.x shape Temporal's interceptors build
 * there (`parentSpanId`, `instrumentationLibrary`), as the 2.x `ReadableSpan` our processors
 * and exporters read (`parentSpanContext`, `instrumentationScope`). Pure.
 */
export function toReadableSpan(s: SerializableSpan, resource: Resource, extra: Attributes = {}): ReadableSpan {
  const { traceState, ...ids } = s.spanContext;
  const spanContext = { ...ids, ...(traceState && { traceState: createTraceState(traceState) }) };
  return {
    name: s.name,
    kind: s.kind,
    spanContext: () => spanContext,
    parentSpanContext: s.parentSpanId
      ? { traceId: ids.traceId, spanId: s.parentSpanId, traceFlags: ids.traceFlags }
      : undefined,
    startTime: s.startTime,
    endTime: s.endTime,
    status: s.status,
    attributes: { ...s.attributes, ...extra },
    links: s.links,
    events: s.events,
    duration: s.duration,
    ended: s.ended,
    resource,
    instrumentationScope: s.instrumentationLibrary,
    droppedAttributesCount: s.droppedAttributesCount,
    droppedEventsCount: s.droppedEventsCount,
    droppedLinksCount: s.droppedLinksCount,
  };
}

/**
 * The `exporter` sink Temporal's workflow interceptors call with each finished workflow span.
 * Workflow and session ids coincide, so every workflow span gets `session.id`. Sinks are not
 * called while a workflow replays, so a span is exported once, when it really ended.
 */
export function workflowSpanSink(processor: SpanProcessor, resource: Resource): InjectedSinks<OpenTelemetrySinks> {
  return {
    exporter: {
      export: {
        fn: (info, spans) => {
          const extra = { [ATTR.sessionId]: info.workflowId, [ATTR.workflowRunId]: info.runId };
          for (const s of spans) processor.onEnd(toReadableSpan(s, resource, extra));
        },
      },
    },
  };
}
