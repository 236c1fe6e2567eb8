import { ExportResultCode, hrTimeToMilliseconds, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { createJsonlFile } from './jsonl-file';

/** One finished span as a line of `spans-<service>.jsonl`; times in epoch milliseconds. */
export function spanRecord(span: ReadableSpan) {
  const ctx = span.spanContext();
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentSpanId: span.parentSpanContext?.spanId ?? null,
    name: span.name,
    kind: span.kind,
    service: span.resource.attributes['service.name'] ?? null,
    startMs: hrTimeToMilliseconds(span.startTime),
    durationMs: hrTimeToMilliseconds(span.duration),
    status: span.status,
    attributes: span.attributes,
    events: span.events.map((e) => ({ name: e.name, timeMs: hrTimeToMilliseconds(e.time), attributes: e.attributes ?? {} })),
  };
}

/** Writes finished spans as JSON lines: the default when no collector is configured. */
export class JsonlSpanExporter implements SpanExporter {
  private readonly file;

  constructor(path: string) {
    this.file = createJsonlFile(path);
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.file.append(spans.map(spanRecord)).then(
      () => done({ code: ExportResultCode.SUCCESS }),
      (error: Error) => done({ code: ExportResultCode.FAILED, error }),
    );
  }

  forceFlush(): Promise<void> {
    return this.file.drain();
  }

  shutdown(): Promise<void> {
    return this.file.drain();
  }
}
