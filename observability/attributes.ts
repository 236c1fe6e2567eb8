/**
 * Attribute and span names Recur puts on its telemetry. Model attributes follow the OpenTelemetry
 * GenAI conventions so generic dashboards read them; the rest are Recur's own.
 */
export const ATTR = {
  sessionId: 'session.id',
  /** `<session>/<seq>` of the event a span produced or acted on (a cell's CellRequested id). */
  eventId: 'event.id',
  eventSeq: 'event.seq',
  eventCount: 'event.count',
  eventTypes: 'event.types',
  agent: 'recur.agent',
  model: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  provider: 'gen_ai.provider.name',
  tokensIn: 'gen_ai.usage.input_tokens',
  tokensOut: 'gen_ai.usage.output_tokens',
  costUsd: 'recur.model.cost_usd',
  callIndex: 'recur.model.call_index',
  stopReason: 'recur.model.stop_reason',
  cellId: 'recur.cell.id',
  cellStatus: 'recur.cell.status',
  cellDurationMs: 'recur.cell.duration_ms',
  cellError: 'recur.cell.error_name',
  /** The kernel had been lost and was restored from a snapshot before the cell ran. */
  kernelRestored: 'recur.kernel.restored',
  tokenType: 'gen_ai.token.type',
  workflowRunId: 'temporal.run_id',
} as const;

/** The instrumentation scope of Recur's own spans and metrics. */
export const TRACER_NAME = 'recur';

export const SPAN = {
  modelCall: 'model.call',
  cellExecute: 'cell.execute',
} as const;
