import {
  OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { Next, WorkflowClientInterceptor, WorkflowDescribeInput, WorkflowQueryInput } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';
import { recurActivityInterceptors } from './activity-tracing';
import type { CellContexts } from './cell-contexts';
import type { Telemetry } from './init-telemetry';
import { workflowSpanSink } from './workflow-span-sink';

/**
 * Temporal's client interceptor, less the spans for queries and describes: `rlm.result`,
 * `recur status` and the UI poll them, and a span per poll would bury each trace. Starts,
 * signals, updates and cancels still carry the caller's trace into the workflow.
 */
class QuietPollsClientInterceptor extends OpenTelemetryWorkflowClientInterceptor {
  override query(input: WorkflowQueryInput, next: Next<WorkflowClientInterceptor, 'query'>): Promise<unknown> {
    return next(input);
  }

  override describe(input: WorkflowDescribeInput, next: Next<WorkflowClientInterceptor, 'describe'>) {
    return next(input);
  }
}

/** For `new Client({ ..., interceptors: clientTracing() })`; records into the global tracer provider. */
export function clientTracing(): { workflow: WorkflowClientInterceptor[] } {
  return { workflow: [new QuietPollsClientInterceptor()] };
}

/** The workflow interceptor modules a traced worker's bundle includes (scripts/build-workflows.mjs bundles them in). */
export const TRACED_WORKFLOW_MODULES = [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];

/**
 * What `Worker.create` needs for one trace per session tree: the workflow interceptors (spans
 * for the run, its activities, child starts and handlers, parented by the caller's headers),
 * the sink that exports those spans, and activity interceptors (Temporal's `RunActivity` span,
 * then Recur's model and cell spans inside it). Empty when telemetry is off.
 */
export function workerTracing(telemetry: Telemetry, cells: CellContexts): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  if (!telemetry.spanProcessor) return {};
  return {
    interceptors: {
      workflowModules: TRACED_WORKFLOW_MODULES,
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
        recurActivityInterceptors({ tracer: telemetry.tracer, metrics: telemetry.metrics, cells }),
      ],
    },
    sinks: workflowSpanSink(telemetry.spanProcessor, telemetry.resource),
  };
}
