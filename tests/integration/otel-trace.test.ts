import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { clientTracing, initTelemetry, traceHeaders, traceRequest, type Telemetry } from '../../observability';
import { temporalAddress } from '../../config/connections';
import { createRecurWorker, type RecurWorker } from '../../services/worker/create-worker';
import { prebuiltWorkflowBundle } from '../../services/worker/workflow-bundle';
import type { SessionResult } from '../../workflows/session-types';
import { SessionHarness, py } from '../helpers/session-harness';

/**
 * One trace per session tree: a real worker (Temporal, Kafka, Jupyter) with Temporal's OTel
 * interceptors and Recur's, running the prebuilt traced workflow bundle, exporting to memory.
 * The test plays the CLI (a root span whose traceparent goes in a header) and the daemon (a server span continuing it, which starts the
 * root workflow through a traced client).
 */
describe('one trace per session tree (real stack, in-memory exporter)', () => {
  const h = new SessionHarness();
  const taskQueue = `otel-${randomBytes(4).toString('hex')}`;
  let telemetry: Telemetry;
  let recur: RecurWorker;
  let running: Promise<void>;
  let connection: Connection;
  let client: Client;

  beforeAll(async () => {
    telemetry = initTelemetry({ service: 'recur-worker', config: h.config, mode: 'memory' });
    // The traced bundle `npm run build` makes, as a worker process with telemetry on runs it: its workflow spans come from the interceptors bundled in.
    recur = await createRecurWorker(h.config, { taskQueue, telemetry, workflowBundle: prebuiltWorkflowBundle(true) });
    running = recur.worker.run();
    connection = await Connection.connect({ address: temporalAddress(h.config) });
    client = new Client({ connection, namespace: h.config.temporal.namespace, interceptors: clientTracing() });
  }, 120_000);

  afterAll(async () => {
    recur.worker.shutdown();
    await running;
    await recur.close();
    await connection.close();
    await telemetry.shutdown();
  });

  const finished = () => telemetry.memory!.spans.getFinishedSpans();

  it('traces CLI → daemon → root and child workflows → model calls and cells, and stamps every event with the trace', async () => {
    const input = h.input({
      root: [py('k = rlm("compute 6*7", name="kid")\nprint(k.result(timeout=120))'), 'done'],
      kid: [py('x = 6 * 7\nprint(x)'), '42'],
    }, 'traced task');
    const root = input.sessionId;
    const kid = `${root}/kid`;

    const { traceId, result } = await telemetry.tracer.startActiveSpan('recur run', async (cli) => {
      const headers = traceHeaders();
      const handle = await traceRequest({ method: 'POST', url: '/v1/sessions', headers }, () =>
        client.workflow.start('agentSessionWorkflow', { taskQueue, workflowId: root, args: [input] }));
      const res = await handle.result() as SessionResult;
      cli.end();
      return { traceId: cli.spanContext().traceId, result: res };
    });
    expect(result).toEqual({ status: 'completed', answer: 'done' });
    const run = await h.read(root, result);

    // Workflow spans reach the exporter through the sink once each workflow task is done.
    const runWorkflow = (sid: string) => finished().find((s) => s.name === 'RunWorkflow:agentSessionWorkflow' && s.attributes['session.id'] === sid);
    const events = [...run.sessions.values()].flat();
    const exportedIds = () => new Set(finished().map((s) => s.spanContext().spanId));
    for (let i = 0; i < 100 && !(runWorkflow(root) && runWorkflow(kid) && events.every((e) => exportedIds().has(e.spanId ?? ''))); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const spans = finished();
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    /** Span names from `s` up to the root of its trace. */
    const path = (s: ReadableSpan): string[] => {
      const names = [];
      for (let cur: ReadableSpan | undefined = s; cur; cur = byId.get(cur.parentSpanContext?.spanId ?? '')) names.push(`${cur.name}@${cur.attributes['session.id'] ?? ''}`);
      return names;
    };

    // One trace: the CLI's root span is the ancestor of both sessions' workflow spans.
    const rootRun = runWorkflow(root)!;
    const kidRun = runWorkflow(kid)!;
    expect(rootRun.spanContext().traceId).toBe(traceId);
    expect(kidRun.spanContext().traceId).toBe(traceId);
    expect(path(rootRun)).toEqual([
      `RunWorkflow:agentSessionWorkflow@${root}`, 'StartWorkflow:agentSessionWorkflow@', 'POST /v1/sessions@', 'recur run@',
    ]);
    // The child was started by the update the root's cell sent through the host bridge.
    expect(path(kidRun).slice(0, 7)).toEqual([
      `RunWorkflow:agentSessionWorkflow@${kid}`, `StartChildWorkflow:agentSessionWorkflow@${root}`, `HandleUpdate:spawnChild@${root}`,
      'StartWorkflowUpdate:spawnChild@', `kernel.call rlm.spawn@${root}`, `cell.execute@${root}`, `RunActivity:runCell@${root}`,
    ]);
    expect(path(kidRun).at(-1)).toBe('recur run@');

    // Model calls and cells sit under their own session's workflow span.
    for (const [sid, wf] of [[root, rootRun], [kid, kidRun]] as const) {
      const calls = spans.filter((s) => s.name === 'model.call' && s.attributes['session.id'] === sid);
      const cells = spans.filter((s) => s.name === 'cell.execute' && s.attributes['session.id'] === sid);
      expect(calls).toHaveLength(2);
      expect(cells).toHaveLength(1);
      for (const s of [...calls, ...cells]) {
        expect(s.spanContext().traceId).toBe(traceId);
        expect(path(s)).toContain(`${wf.name}@${sid}`);
      }
      expect(path(calls[0]).slice(0, 3)).toEqual([`model.call@${sid}`, `RunActivity:callModel@${sid}`, `StartActivity:callModel@${sid}`]);
      expect(calls[0].attributes).toMatchObject({ 'gen_ai.provider.name': 'scripted', 'recur.model.cost_usd': 0 });
      expect(calls[0].attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(cells[0].attributes).toMatchObject({ 'recur.cell.status': 'ok', 'recur.cell.id': run.of('CellExecuted', sid)[0].requestId });
    }

    // Every event in Kafka carries the trace, and the span of the workflow step that appended it.
    expect(events.length).toBeGreaterThan(10);
    for (const e of events) {
      expect(e.traceId).toBe(traceId);
      const appendedBy = byId.get(e.spanId ?? '');
      expect(appendedBy?.name).toBe('StartActivity:appendEvents');
      expect(appendedBy?.attributes['session.id']).toBe(e.sessionId);
    }
  });

  it('counts tokens, cells and sessions, and no kernel stays loaded after the tree ends', async () => {
    await telemetry.flush();
    const latest = telemetry.memory!.metrics.getMetrics().at(-1)!;
    const metric = (name: string) => latest.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
    const tokens = metric('recur.model.tokens')!.dataPoints.map((p) => p.value as number);
    expect(tokens.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    const cellCount = metric('recur.cell.duration')!.dataPoints.reduce((n, p) => n + (p.value as { count: number }).count, 0);
    expect(cellCount).toBe(2);
    expect(metric('recur.sessions.active')!.dataPoints[0].value).toBe(0);
    expect(metric('recur.kernels.loaded')!.dataPoints[0].value).toBe(0);
  });
});
