import { ExportResultCode, hrTimeToMilliseconds, type ExportResult } from '@opentelemetry/core';
import { DataPointType, type PushMetricExporter, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { createJsonlFile } from './jsonl-file';

/**
 * One line per data point of `metrics-<service>.jsonl`. Values are cumulative since the process
 * started (the SDK's default temporality), so the last line of a series is its current total.
 */
export function metricRecords(metrics: ResourceMetrics) {
  const service = metrics.resource.attributes['service.name'] ?? null;
  return metrics.scopeMetrics.flatMap((scope) => scope.metrics.flatMap((m) => m.dataPoints.map((p) => ({
    timeMs: hrTimeToMilliseconds(p.endTime),
    service,
    name: m.descriptor.name,
    unit: m.descriptor.unit,
    type: DataPointType[m.dataPointType].toLowerCase(),
    attributes: p.attributes,
    value: typeof p.value === 'number' ? p.value : null,
    histogram: m.dataPointType === DataPointType.HISTOGRAM && typeof p.value !== 'number'
      ? { count: p.value.count, sum: p.value.sum ?? null, min: p.value.min ?? null, max: p.value.max ?? null }
      : null,
  }))));
}

export class JsonlMetricExporter implements PushMetricExporter {
  private readonly file;

  constructor(path: string) {
    this.file = createJsonlFile(path);
  }

  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    this.file.append(metricRecords(metrics)).then(
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
