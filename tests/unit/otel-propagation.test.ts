import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { BridgeHandler, HostBridge } from '../../services/host-bridge';
import { CellContexts, initTelemetry, routeOf, traceBridgeCalls, traceHeaders, traceRequest, type Telemetry } from '../../observability';

describe('trace propagation across process and kernel boundaries', () => {
  let t: Telemetry;
  beforeEach(() => {
    t = initTelemetry({ service: 'recur-test', config: { home: '/nonexistent' }, mode: 'memory' });
  });
  afterEach(() => t.shutdown());
  const spans = () => t.memory!.spans.getFinishedSpans();

  it('carries the CLI\'s span to the daemon in a W3C traceparent header', async () => {
    const { headers, cli } = t.tracer.startActiveSpan('recur run', (span) => {
      span.end();
      return { headers: traceHeaders(), cli: span.spanContext() };
    });
    expect(headers.traceparent).toBe(`00-${cli.traceId}-${cli.spanId}-01`);

    const inHandler = await traceRequest({ method: 'POST', url: '/v1/sessions?x=1', headers }, async () => {
      const active = trace.getActiveSpan()!.spanContext();
      return { status: 201, active };
    });
    const server = spans().find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.name).toBe('POST /v1/sessions');
    expect(server.spanContext().traceId).toBe(cli.traceId);
    expect(server.parentSpanContext?.spanId).toBe(cli.spanId);
    expect(inHandler.active.spanId).toBe(server.spanContext().spanId);
    expect(server.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 201 });
  });

  it('starts a new trace for a request without traceparent and marks server errors', async () => {
    await expect(traceRequest({ method: 'GET', url: '/v1/sessions/abc/x', headers: {} }, async () => {
      throw Object.assign(new Error('temporal down'), { status: 503 });
    })).rejects.toThrow('temporal down');
    const [server] = spans();
    expect(server.parentSpanContext).toBeUndefined();
    expect(server.status.code).toBe(2);
    expect(server.attributes['http.response.status_code']).toBe(503);
  });

  it('names spans by route, not by session id', () => {
    expect(routeOf('/v1/sessions/t1%2Fkid/events?after=3')).toBe('/v1/sessions/{id}/events');
    expect(routeOf('/v1/sessions')).toBe('/v1/sessions');
    expect(routeOf('/v1/status')).toBe('/v1/status');
  });

  it('runs a kernel\'s bridge call in a span under the cell that session is running', async () => {
    const handlers = new Map<string, BridgeHandler>();
    const bridge = { url: 'http://127.0.0.1:1', handle: (op: string, h: BridgeHandler) => handlers.set(op, h) } as unknown as HostBridge;
    const cells = new CellContexts();
    let activeInHandler: string | undefined;
    traceBridgeCalls(bridge, cells, t.tracer).handle('rlm.spawn', async (sessionId) => {
      activeInHandler = trace.getActiveSpan()?.spanContext().spanId;
      return { id: `${sessionId}/kid` };
    });

    const cell = t.tracer.startSpan('cell.execute');
    const leave = cells.enter('root', trace.setSpan(ROOT_CONTEXT, cell));
    const reply = await handlers.get('rlm.spawn')!('root', { task: 't' }, { signal: new AbortController().signal });
    leave();
    cell.end();

    expect(reply).toEqual({ id: 'root/kid' });
    const call = spans().find((s) => s.name === 'kernel.call rlm.spawn')!;
    expect(call.parentSpanContext?.spanId).toBe(cell.spanContext().spanId);
    expect(call.spanContext().traceId).toBe(cell.spanContext().traceId);
    expect(call.attributes['session.id']).toBe('root');
    expect(activeInHandler).toBe(call.spanContext().spanId);
    expect(cells.get('root')).toBeUndefined();
  });

  it('keeps a newer cell\'s context when an older cell leaves late', () => {
    const cells = new CellContexts();
    const first = trace.setSpan(ROOT_CONTEXT, t.tracer.startSpan('a'));
    const second = trace.setSpan(ROOT_CONTEXT, t.tracer.startSpan('b'));
    const leaveFirst = cells.enter('s', first);
    cells.enter('s', second);
    leaveFirst();
    expect(cells.get('s')).toBe(second);
  });
});
