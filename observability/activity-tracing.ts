import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Attributes, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import { TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import type { ActivityExecuteInput, ActivityInterceptorsFactory } from '@temporalio/worker';
import type { CallModelInput, CallModelResult } from '../activities/call-model';
import type { AppendEventsInput } from '../activities/event-log';
import type { RunCellInput, RunCellResult } from '../activities/session-activities';
import { ATTR, SPAN } from './attributes';
import type { CellContexts } from './cell-contexts';
import { seqOfEventId, sessionsDelta, stampEventTrace } from './event-trace';
import type { RecurMetrics } from './metrics';

export interface ActivityTracingDeps {
  tracer: Tracer;
  metrics: RecurMetrics;
  cells: CellContexts;
}

/**
 * Recur's view of its activities, inside Temporal's `RunActivity` span: a `model.call` span with
 * model, provider, tokens and cost; a `cell.execute` span with the cell's id, status and
 * duration; event ids on appends, and the workflow's trace ids stamped into the events. Metrics
 * are recorded from the same results. Activities themselves stay free of telemetry code.
 */
export function recurActivityInterceptors(deps: ActivityTracingDeps): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      execute(input, next) {
        const [arg] = input.args as [{ sessionId?: unknown } | undefined];
        if (typeof arg?.sessionId === 'string') trace.getActiveSpan()?.setAttribute(ATTR.sessionId, arg.sessionId);
        switch (ctx.info.activityType) {
          case 'callModel': return traceModelCall(deps, input, next);
          case 'runCell': return traceCell(deps, input, next);
          case 'appendEvents': return traceAppend(deps, input, next);
          default: return next(input);
        }
      },
    },
  });
}

type Next = (input: ActivityExecuteInput) => Promise<unknown>;

async function inSpan<T>(tracer: Tracer, name: string, kind: SpanKind, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

const traceModelCall = (deps: ActivityTracingDeps, input: ActivityExecuteInput, next: Next): Promise<unknown> =>
  tracedModelCall(deps, () => next(input) as Promise<CallModelResult>)(input.args[0] as CallModelInput);

const traceCell = (deps: ActivityTracingDeps, input: ActivityExecuteInput, next: Next): Promise<unknown> =>
  tracedCell(deps, () => next(input) as Promise<RunCellResult>)(input.args[0] as RunCellInput);

/** `fn`, each call in a `model.call` span and counted: as an activity, or a step the worker runs (activities/step-loop). */
export function tracedModelCall<A extends unknown[]>(deps: ActivityTracingDeps, fn: (call: CallModelInput, ...rest: A) => Promise<CallModelResult>) {
  return (call: CallModelInput, ...rest: A): Promise<CallModelResult> => inSpan(deps.tracer, SPAN.modelCall, SpanKind.CLIENT, {
    [ATTR.sessionId]: call.sessionId, [ATTR.agent]: call.agent, [ATTR.model]: call.model,
    [ATTR.callIndex]: call.callIndex, [ATTR.eventSeq]: call.throughSeq,
  }, async (span) => {
    const res = await fn(call, ...rest);
    const e = res.event;
    span.setAttributes({
      [ATTR.responseModel]: e.model, [ATTR.provider]: e.provider, [ATTR.tokensIn]: e.tokensIn,
      [ATTR.tokensOut]: e.tokensOut, [ATTR.costUsd]: e.costUsd, [ATTR.stopReason]: e.stopReason ?? '',
    });
    deps.metrics.recordModelCall(e);
    return res;
  });
}

/** `fn`, each cell in a `cell.execute` span (which the kernel's calls to the host carry) and counted. */
export function tracedCell<A extends unknown[]>(deps: ActivityTracingDeps, fn: (cell: RunCellInput, ...rest: A) => Promise<RunCellResult>) {
  return (cell: RunCellInput, ...rest: A): Promise<RunCellResult> => {
    const seq = seqOfEventId(cell.cellId);
    return inSpan(deps.tracer, SPAN.cellExecute, SpanKind.INTERNAL, {
      [ATTR.sessionId]: cell.sessionId, [ATTR.cellId]: cell.cellId, [ATTR.eventId]: cell.cellId,
      ...(seq !== undefined && { [ATTR.eventSeq]: seq }),
    }, async (span) => {
      const leave = deps.cells.enter(cell.sessionId, context.active());
      try {
        const res = await fn(cell, ...rest);
        const { cell: done, restored } = res;
        span.setAttributes({ [ATTR.cellStatus]: done.status, [ATTR.cellDurationMs]: done.durationMs, [ATTR.kernelRestored]: restored !== null });
        if (done.errorName) span.setAttribute(ATTR.cellError, done.errorName);
        deps.metrics.recordCell(done);
        return res;
      } finally {
        leave();
      }
    });
  };
}

async function traceAppend(deps: ActivityTracingDeps, input: ActivityExecuteInput, next: Next): Promise<unknown> {
  const batch = input.args[0] as AppendEventsInput;
  const stamped = stampEventTrace(batch, schedulingSpan(input.headers));
  const span = trace.getActiveSpan();
  if (span && batch.events.length > 0) {
    span.setAttributes({
      [ATTR.eventId]: `${batch.sessionId}/${batch.fromSeq}`, [ATTR.eventSeq]: batch.fromSeq,
      [ATTR.eventCount]: batch.events.length, [ATTR.eventTypes]: batch.events.map((e) => e.event.type),
    });
  }
  const res = await next({ ...input, args: [stamped, ...input.args.slice(1)] });
  deps.metrics.sessionsActive(sessionsDelta(batch));
  return res;
}

/** The workflow span that scheduled this activity (Temporal's `StartActivity`), from its headers. */
function schedulingSpan(headers: Headers): SpanContext | undefined {
  const payload = headers[TRACE_HEADER];
  if (!payload) return undefined;
  const carrier = defaultPayloadConverter.fromPayload<Record<string, string>>(payload);
  return trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier));
}
