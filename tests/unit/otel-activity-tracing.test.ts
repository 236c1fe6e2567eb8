import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Context as ActivityContext } from '@temporalio/activity';
import { headersWithContext } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import type { ActivityExecuteInput } from '@temporalio/worker';
import type { CallModelResult } from '../../activities/call-model';
import type { AppendEventsInput } from '../../activities/event-log';
import type { RunCellInput, RunCellResult } from '../../activities/session-activities';
import { CellContexts, initTelemetry, recurActivityInterceptors, type Telemetry } from '../../observability';
import { ZERO_HASH } from '../../schemas';

const cellInput = (cellId: string): RunCellInput => ({
  sessionId: 's1', rootId: 's1', cellId, code: '1/0', timeoutSeconds: 5, firstCell: true, restoreFrom: null, throughSeq: 4,
});

describe('activity interceptors: model and cell spans, traced events, metrics', () => {
  let t: Telemetry;
  let cells: CellContexts;
  beforeEach(() => {
    t = initTelemetry({ service: 'recur-test', config: { home: '/nonexistent' }, mode: 'memory' });
    cells = new CellContexts();
  });
  afterEach(() => t.shutdown());

  const spans = () => t.memory!.spans.getFinishedSpans();
  /** Runs one activity through the interceptor inside a `RunActivity` stand-in span. */
  function execute(activityType: string, args: unknown[], next: (input: ActivityExecuteInput) => Promise<unknown>, headers = {}) {
    const inbound = recurActivityInterceptors({ tracer: t.tracer, metrics: t.metrics, cells })({ info: { activityType } } as ActivityContext).inbound!;
    return t.tracer.startActiveSpan(`RunActivity:${activityType}`, async (run) => {
      try {
        return await inbound.execute!({ args, headers }, next);
      } finally {
        run.end();
      }
    });
  }

  it('wraps a model call in a model.call span with model, provider, tokens and cost, and counts them', async () => {
    const result = {
      answer: null, code: 'x = 1', toolCallId: 'c1',
      event: { model: 'gpt-x-2025', provider: 'openai', tokensIn: 120, tokensOut: 8, costUsd: 0.004, latencyMs: 90, stopReason: 'tool_calls' },
    } as unknown as CallModelResult;
    await execute('callModel', [{ sessionId: 'root/kid', agent: 'kid', model: 'openai/gpt-x', callIndex: 3, throughSeq: 11 }], async () => result);

    const run = spans().find((s) => s.name === 'RunActivity:callModel')!;
    const call = spans().find((s) => s.name === 'model.call')!;
    expect(call.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    expect(call.attributes).toMatchObject({
      'session.id': 'root/kid', 'recur.agent': 'kid', 'gen_ai.request.model': 'openai/gpt-x', 'gen_ai.response.model': 'gpt-x-2025',
      'gen_ai.provider.name': 'openai', 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 8,
      'recur.model.cost_usd': 0.004, 'recur.model.call_index': 3, 'event.seq': 11,
    });
    expect(run.attributes['session.id']).toBe('root/kid');
    await t.flush();
    const names = t.memory!.metrics.getMetrics().at(-1)!.scopeMetrics.flatMap((s) => s.metrics.map((m) => m.descriptor.name));
    expect(names).toEqual(expect.arrayContaining(['recur.model.tokens', 'recur.model.cost', 'recur.model.duration']));
  });

  it('runs a cell in a cell.execute span that the session\'s kernel calls join while it runs', async () => {
    let seenDuringCell: string | undefined;
    const result: RunCellResult = { cell: { status: 'error', outputs: 'boom', durationMs: 42, errorName: 'ZeroDivisionError' }, restored: null };
    await execute('runCell', [cellInput('s1/4')], async () => {
      seenDuringCell = trace.getSpanContext(cells.get('s1')!)?.spanId;
      return result;
    });
    const cell = spans().find((s) => s.name === 'cell.execute')!;
    expect(seenDuringCell).toBe(cell.spanContext().spanId);
    expect(cells.get('s1')).toBeUndefined();
    expect(cell.attributes).toMatchObject({
      'session.id': 's1', 'recur.cell.id': 's1/4', 'event.id': 's1/4', 'event.seq': 4,
      'recur.cell.status': 'error', 'recur.cell.duration_ms': 42, 'recur.cell.error_name': 'ZeroDivisionError', 'recur.kernel.restored': false,
    });
  });

  it('marks the span failed when the activity throws, and lets go of the cell', async () => {
    await expect(execute('runCell', [cellInput('s1/2')], async () => {
      throw new Error('jupyter is down');
    })).rejects.toThrow('jupyter is down');
    const cell = spans().find((s) => s.name === 'cell.execute')!;
    expect(cell.status).toEqual({ code: SpanStatusCode.ERROR, message: 'jupyter is down' });
    expect(cell.events.map((e) => e.name)).toEqual(['exception']);
    expect(cells.get('s1')).toBeUndefined();
  });

  it('stamps appended events with the workflow span that scheduled them, the same on every attempt', async () => {
    const scheduled = t.tracer.startSpan('StartActivity:appendEvents');
    const headers = context.with(trace.setSpan(context.active(), scheduled), () => headersWithContext({}));
    scheduled.end();
    const input: AppendEventsInput = {
      sessionId: 's1', rootId: 's1', parentId: null, fromSeq: 0, prevHash: ZERO_HASH,
      events: [{ ts: 1, event: { type: 'SessionCompleted', answer: 'ok' } }],
    };
    const written: AppendEventsInput[] = [];
    const next = async (i: ActivityExecuteInput) => {
      written.push(i.args[0] as AppendEventsInput);
      return { nextSeq: 1, headHash: 'h', eventIds: ['s1/0'] };
    };
    await execute('appendEvents', [input], next, headers);
    await execute('appendEvents', [input], next, headers);

    const ids = written.map((b) => b.events.map((e) => [e.traceId, e.spanId]));
    expect(ids).toEqual([[[scheduled.spanContext().traceId, scheduled.spanContext().spanId]], [[scheduled.spanContext().traceId, scheduled.spanContext().spanId]]]);
    expect(input.events[0].traceId).toBeUndefined();
    const run = spans().find((s) => s.name === 'RunActivity:appendEvents')!;
    expect(run.attributes).toMatchObject({ 'session.id': 's1', 'event.id': 's1/0', 'event.seq': 0, 'event.count': 1, 'event.types': ['SessionCompleted'] });
  });

  it('leaves events untraced when the workflow sent no trace context', async () => {
    const input: AppendEventsInput = {
      sessionId: 's1', rootId: 's1', parentId: null, fromSeq: 0, prevHash: ZERO_HASH,
      events: [{ ts: 1, event: { type: 'SessionCompleted', answer: 'ok' } }],
    };
    let written: AppendEventsInput | undefined;
    await execute('appendEvents', [input], async (i) => {
      written = i.args[0] as AppendEventsInput;
      return {};
    });
    expect(written!.events[0].traceId).toBeUndefined();
  });
});
