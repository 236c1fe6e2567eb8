import { ValueType, type Attributes, type Meter } from '@opentelemetry/api';
import { ATTR } from './attributes';

export interface ModelCallMeasure {
  model: string;
  provider: string;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  latencyMs: number;
}

/** Recur's instruments. Attributes stay low-cardinality (model, provider, status): no session ids. */
export interface RecurMetrics {
  recordModelCall(m: ModelCallMeasure): void;
  recordCell(m: { status: string; durationMs: number }): void;
  /** +1 when a session logs its start, -1 when it logs its end. */
  sessionsActive(delta: number): void;
  /** Reports `count()` as the number of kernels this process holds, at each collection. */
  observeKernels(count: () => number): void;
}

export function createRecurMetrics(meter: Meter): RecurMetrics {
  const tokens = meter.createCounter('recur.model.tokens', {
    description: 'Model tokens used, by gen_ai.token.type (input or output)', unit: '{token}', valueType: ValueType.INT,
  });
  const cost = meter.createCounter('recur.model.cost', { description: 'Model spend', unit: 'USD' });
  const modelLatency = meter.createHistogram('recur.model.duration', {
    description: 'Model call latency as the provider adapter measured it', unit: 'ms',
  });
  const cellLatency = meter.createHistogram('recur.cell.duration', { description: 'Cell execution time in the kernel', unit: 'ms' });
  const sessions = meter.createUpDownCounter('recur.sessions.active', {
    description: 'Sessions started and not yet ended', unit: '{session}', valueType: ValueType.INT,
  });
  const kernels = meter.createObservableGauge('recur.kernels.loaded', {
    description: 'Kernels this worker holds for sessions', unit: '{kernel}', valueType: ValueType.INT,
  });

  return {
    recordModelCall(m) {
      const attrs: Attributes = { [ATTR.model]: m.model, [ATTR.provider]: m.provider };
      tokens.add(m.tokensIn, { ...attrs, [ATTR.tokenType]: 'input' });
      tokens.add(m.tokensOut, { ...attrs, [ATTR.tokenType]: 'output' });
      cost.add(m.costUsd, attrs);
      modelLatency.record(m.latencyMs, attrs);
    },
    recordCell(m) {
      cellLatency.record(m.durationMs, { [ATTR.cellStatus]: m.status });
    },
    sessionsActive(delta) {
      if (delta !== 0) sessions.add(delta);
    },
    observeKernels(count) {
      kernels.addCallback((result) => result.observe(count()));
    },
  };
}
