import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { loadConfig } from '../config';
import { initTelemetry, type Telemetry } from './init-telemetry';

/**
 * Runs one CLI invocation as the root span of its trace (`recur <command>`), then flushes before
 * the process exits. Requests to the daemon made inside carry the trace (see traceHeaders). A
 * config the CLI cannot load is the command's to report, so the command then runs untraced.
 */
export async function traceCli(argv: readonly string[], run: () => Promise<number>, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let telemetry: Telemetry;
  try {
    telemetry = initTelemetry({ service: 'recur-cli', config: loadConfig(env), env });
  } catch {
    return run();
  }
  const command = argv.find((a) => !a.startsWith('-')) ?? 'help';
  try {
    return await telemetry.tracer.startActiveSpan(`recur ${command}`, { kind: SpanKind.CLIENT, attributes: { 'recur.command': command } }, async (span) => {
      try {
        const code = await run();
        span.setAttribute('process.exit.code', code);
        if (code !== 0) span.setStatus({ code: SpanStatusCode.ERROR, message: `exit code ${code}` });
        return code;
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    });
  } finally {
    await telemetry.shutdown().catch(() => undefined);
  }
}
