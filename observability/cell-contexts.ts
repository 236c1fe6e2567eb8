import { SpanKind, SpanStatusCode, context, type Context, type Tracer } from '@opentelemetry/api';
import { ATTR } from './attributes';

/**
 * The trace context of the cell each session's kernel is running, so what the kernel asks of
 * the host while the cell runs (rlm spawns, agent messages) joins that cell's trace: the
 * kernel's HTTP call to the bridge carries no trace context of its own.
 */
export class CellContexts {
  private readonly bySession = new Map<string, Context>();

  /** Marks `ctx` as the session's running cell; the returned function clears it. */
  enter(sessionId: string, ctx: Context): () => void {
    this.bySession.set(sessionId, ctx);
    return () => {
      if (this.bySession.get(sessionId) === ctx) this.bySession.delete(sessionId);
    };
  }

  get(sessionId: string): Context | undefined {
    return this.bySession.get(sessionId);
  }
}

/** A handler of a kernel's call: the calling session first (services/host-bridge's BridgeHandler is one). */
export type OpHandler = (sessionId: string, ...rest: never[]) => Promise<unknown>;

/** What the tracing wraps, named by its shape: the host bridge lives in services/, above this layer. */
export interface OpRegistry<H extends OpHandler> {
  handle(op: string, handler: H): void;
}

/**
 * The same bridge, with each op's handler run in a `kernel.call <op>` span under the calling
 * session's running cell, so Temporal's client interceptor carries that trace into the
 * session's update handlers and on to the children they start.
 */
export function traceBridgeCalls<H extends OpHandler, B extends OpRegistry<H>>(bridge: B, cells: CellContexts, tracer: Tracer): B {
  return {
    ...bridge,
    handle(op: string, handler: H) {
      bridge.handle(op, ((sessionId: string, ...rest: never[]) => {
        const parent = cells.get(sessionId) ?? context.active();
        return tracer.startActiveSpan(`kernel.call ${op}`, { kind: SpanKind.SERVER, attributes: { [ATTR.sessionId]: sessionId } }, parent, async (span) => {
          try {
            return await handler(sessionId, ...rest);
          } catch (err) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
            throw err;
          } finally {
            span.end();
          }
        });
      }) as H);
    },
  };
}
