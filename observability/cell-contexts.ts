import { SpanKind, SpanStatusCode, context, type Context, type Tracer } from '@opentelemetry/api';
import type { HostBridge } from '../services/host-bridge';
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

/**
 * The same bridge, with each op's handler run in a `kernel.call <op>` span under the calling
 * session's running cell, so Temporal's client interceptor carries that trace into the
 * session's update handlers and on to the children they start.
 */
export function traceBridgeCalls(bridge: HostBridge, cells: CellContexts, tracer: Tracer): HostBridge {
  return {
    openSession: (sessionId, socketPath) => bridge.openSession(sessionId, socketPath),
    revokeSession: (sessionId) => bridge.revokeSession(sessionId),
    close: () => bridge.close(),
    handle(op, handler) {
      bridge.handle(op, (sessionId, args, call) => {
        const parent = cells.get(sessionId) ?? context.active();
        return tracer.startActiveSpan(`kernel.call ${op}`, { kind: SpanKind.SERVER, attributes: { [ATTR.sessionId]: sessionId } }, parent, async (span) => {
          try {
            return await handler(sessionId, args, call);
          } catch (err) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
            throw err;
          } finally {
            span.end();
          }
        });
      });
    },
  };
}
