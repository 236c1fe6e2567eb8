import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { SerializableSpan } from '@temporalio/interceptors-opentelemetry';
import type { WorkflowInfo } from '@temporalio/workflow';
import { initTelemetry, toReadableSpan, workflowSpanSink, type Telemetry } from '../../observability';
import { spanRecord } from '../../observability/jsonl-span-exporter';

/** A span as Temporal's workflow interceptors serialize it out of the sandbox (OTel 1.x shape). */
const fromSandbox = (over: Partial<SerializableSpan> = {}): SerializableSpan => ({
  name: 'StartActivity:callModel',
  kind: SpanKind.INTERNAL,
  spanContext: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '00f067aa0ba902b7', traceFlags: 1, traceState: 'k=v' },
  parentSpanId: 'b7ad6b7169203331',
  startTime: [1_700_000_000, 0],
  endTime: [1_700_000_001, 500_000_000],
  status: { code: SpanStatusCode.OK },
  attributes: { a: 1 },
  links: [],
  events: [],
  duration: [1, 500_000_000],
  ended: true,
  droppedAttributesCount: 0,
  droppedEventsCount: 0,
  droppedLinksCount: 0,
  instrumentationLibrary: { name: '@temporalio/interceptor-workflow' },
  ...over,
});

describe('workflow spans leave the sandbox as OTel 2.x spans', () => {
  let t: Telemetry;
  beforeEach(() => {
    t = initTelemetry({ service: 'recur-worker', config: { home: '/nonexistent' }, mode: 'memory' });
  });
  afterEach(() => t.shutdown());

  it('turns parentSpanId into parentSpanContext and the library into the scope', () => {
    const span = toReadableSpan(fromSandbox(), t.resource, { extra: 'x' });
    expect(span.parentSpanContext).toEqual({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 });
    expect(span.instrumentationScope).toEqual({ name: '@temporalio/interceptor-workflow' });
    expect(span.spanContext().traceState?.get('k')).toBe('v');
    expect(span.attributes).toEqual({ a: 1, extra: 'x' });
    expect(spanRecord(span)).toMatchObject({ parentSpanId: 'b7ad6b7169203331', service: 'recur-worker', durationMs: 1500 });
  });

  it('keeps a root workflow span a root', () => {
    expect(toReadableSpan(fromSandbox({ parentSpanId: undefined }), t.resource).parentSpanContext).toBeUndefined();
  });

  it('feeds the sink\'s spans to the process\'s span processor, tagged with the session (= workflow) id', () => {
    const sink = workflowSpanSink(t.spanProcessor!, t.resource);
    expect(sink.exporter.export.callDuringReplay).toBeFalsy();
    sink.exporter.export.fn({ workflowId: 'root/kid', runId: 'run-1' } as WorkflowInfo, [fromSandbox(), fromSandbox({ name: 'RunWorkflow:agentSessionWorkflow' })]);
    const spans = t.memory!.spans.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['StartActivity:callModel', 'RunWorkflow:agentSessionWorkflow']);
    expect(spans[0].attributes).toMatchObject({ 'session.id': 'root/kid', 'temporal.run_id': 'run-1', a: 1 });
    expect(spans[0].resource.attributes['service.name']).toBe('recur-worker');
  });
});
