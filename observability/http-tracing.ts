import type { IncomingHttpHeaders } from 'node:http';
import { SpanKind, SpanStatusCode, context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { TRACER_NAME } from './attributes';

/** W3C `traceparent` (and `tracestate`) for the active span, to add to an outgoing request's headers. */
export function traceHeaders(ctx = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier;
}

/** `/v1/sessions/<id>/events` → `/v1/sessions/{id}/events`: span names stay few however many sessions there are. */
export function routeOf(url: string | undefined): string {
  const path = (url ?? '/').split('?')[0];
  const segments = path.split('/');
  if (segments[2] === 'sessions' && segments.length > 3 && segments[3] !== '') segments[3] = '{id}';
  return segments.join('/');
}

/**
 * Runs a request's handling in a SERVER span that continues the caller's trace (its
 * `traceparent` header), so the daemon's Temporal calls join the trace the CLI started.
 */
export function traceRequest<T>(
  req: { method?: string; url?: string; headers: IncomingHttpHeaders },
  fn: () => Promise<T>,
  tracer: Tracer = trace.getTracer(TRACER_NAME),
): Promise<T> {
  const parent = propagation.extract(context.active(), req.headers);
  const method = req.method ?? 'GET';
  const route = routeOf(req.url);
  const attributes = { 'http.request.method': method, 'http.route': route, 'url.path': (req.url ?? '/').split('?')[0] };
  return tracer.startActiveSpan(`${method} ${route}`, { kind: SpanKind.SERVER, attributes }, parent, async (span) => {
    try {
      const result = await fn();
      const status = (result as { status?: unknown } | undefined)?.status;
      if (typeof status === 'number') span.setAttribute('http.response.status_code', status);
      return result;
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      if (typeof status === 'number') span.setAttribute('http.response.status_code', status);
      if (typeof status !== 'number' || status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}
