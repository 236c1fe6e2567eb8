import { resolveTelemetryOptions } from '../../observability';

describe('telemetry options from the standard OTel environment', () => {
  const config = { home: '/tmp/recur-home' };

  it('writes JSON lines under <home>/telemetry when no collector is configured', () => {
    expect(resolveTelemetryOptions(config, {})).toEqual({ mode: 'file', dir: '/tmp/recur-home/telemetry', metricIntervalMs: 10_000, otlp: null });
  });

  it('exports OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or the traces endpoint) is set', () => {
    expect(resolveTelemetryOptions(config, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' })).toMatchObject({
      mode: 'otlp', otlp: { traces: 'http://127.0.0.1:4318/v1/traces', metrics: 'http://127.0.0.1:4318/v1/metrics' },
    });
    expect(resolveTelemetryOptions(config, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:9/t' })).toMatchObject({
      mode: 'otlp', otlp: { traces: 'http://c:9/t', metrics: 'http://localhost:4318/v1/metrics' },
    });
  });

  it('is off when OTEL_SDK_DISABLED=true, even with an endpoint', () => {
    expect(resolveTelemetryOptions(config, { OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x' }).mode).toBe('off');
    expect(resolveTelemetryOptions(config, { OTEL_SDK_DISABLED: 'false' }).mode).toBe('file');
  });

  it('lets the caller force a mode and reads the metric interval', () => {
    expect(resolveTelemetryOptions(config, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x' }, 'memory').mode).toBe('memory');
    expect(resolveTelemetryOptions(config, { OTEL_METRIC_EXPORT_INTERVAL: '2500' }).metricIntervalMs).toBe(2500);
    expect(resolveTelemetryOptions(config, { OTEL_METRIC_EXPORT_INTERVAL: 'soon' }).metricIntervalMs).toBe(10_000);
  });
});
