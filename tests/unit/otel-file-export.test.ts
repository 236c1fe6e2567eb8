import { mkdtempSync, readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { initTelemetry, traceCli, traceHeaders } from '../../observability';
import { repoRoot } from '../../services/home/repo-root';

const run = promisify(execFile);

const lines = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

describe('file telemetry (the default without a collector)', () => {
  it('writes finished spans and metric points as JSON lines under <home>/telemetry', async () => {
    const home = mkdtempSync(join(tmpdir(), 'recur-otel-'));
    const t = initTelemetry({ service: 'recur-test', config: { home }, env: {} });
    expect(t.mode).toBe('file');
    const [parentId, traceId] = t.tracer.startActiveSpan('outer', (outer) => {
      t.tracer.startActiveSpan('inner', { attributes: { 'session.id': 's1' } }, (inner) => inner.end());
      outer.end();
      return [outer.spanContext().spanId, outer.spanContext().traceId];
    });
    t.metrics.recordModelCall({ model: 'm', provider: 'p', tokensIn: 10, tokensOut: 3, costUsd: 0.5, latencyMs: 20 });
    await t.shutdown();

    const spans = lines(join(home, 'telemetry', 'spans-recur-test.jsonl'));
    expect(spans.map((s) => s.name)).toEqual(['inner', 'outer']);
    expect(spans[0]).toMatchObject({ traceId, parentSpanId: parentId, service: 'recur-test', attributes: { 'session.id': 's1' } });
    expect(spans[1].parentSpanId).toBeNull();

    const points = lines(join(home, 'telemetry', 'metrics-recur-test.jsonl'));
    const tokens = points.filter((p) => p.name === 'recur.model.tokens');
    expect(tokens.map((p) => [p.attributes['gen_ai.token.type'], p.value]).sort()).toEqual([['input', 10], ['output', 3]]);
    expect(points.find((p) => p.name === 'recur.model.duration')).toMatchObject({ type: 'histogram', histogram: { count: 1, sum: 20 } });
    expect(points.find((p) => p.name === 'recur.model.cost')).toMatchObject({ value: 0.5, unit: 'USD' });
  });

  it('records nothing and registers nothing when OTEL_SDK_DISABLED=true', async () => {
    const home = mkdtempSync(join(tmpdir(), 'recur-otel-'));
    const t = initTelemetry({ service: 'recur-test', config: { home }, env: { OTEL_SDK_DISABLED: 'true' } });
    expect(t.mode).toBe('off');
    expect(t.spanProcessor).toBeNull();
    const span = t.tracer.startSpan('ignored');
    expect(span.isRecording()).toBe(false);
    span.end();
    await t.shutdown();
  });
});

describe('a traced CLI invocation', () => {
  it('is the root span of its trace, whose traceparent requests carry, and is on disk when the command returns', async () => {
    const home = mkdtempSync(join(tmpdir(), 'recur-otel-'));
    let sent: Record<string, string> = {};
    const code = await traceCli(['run', '--json', 'a task'], async () => {
      sent = traceHeaders();
      return 3;
    }, { RECUR_HOME: home });
    expect(code).toBe(3);
    const [span] = lines(join(home, 'telemetry', 'spans-recur-cli.jsonl'));
    expect(span).toMatchObject({ name: 'recur run', parentSpanId: null, status: { code: 2 }, attributes: { 'process.exit.code': 3 } });
    expect(sent.traceparent).toBe(`00-${span.traceId}-${span.spanId}-01`);
  });
});

/**
 * The OTLP exporters load `http` with a dynamic import, which jest's module sandbox refuses, so
 * this part runs in a plain Node child (TypeScript compiled on load by swc, as jest does).
 */
const CHILD = `
require.extensions['.ts'] = (m, f) => m._compile(require('@swc/core').transformSync(require('fs').readFileSync(f, 'utf8'),
  { filename: f, module: { type: 'commonjs' }, jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }).code, f);
const { initTelemetry, workflowSpanSink } = require('./observability');
const t = initTelemetry({ service: 'recur-test', config: { home: '/nonexistent' } });
t.tracer.startSpan('cli').end();
t.metrics.recordCell({ status: 'ok', durationMs: 5 });
workflowSpanSink(t.spanProcessor, t.resource).exporter.export.fn({ workflowId: 'w1', runId: 'r1' }, [{
  name: 'RunWorkflow:agentSessionWorkflow', kind: 0, parentSpanId: 'b7ad6b7169203331',
  spanContext: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '00f067aa0ba902b7', traceFlags: 1 },
  startTime: [1, 0], endTime: [2, 0], duration: [1, 0], status: { code: 0 }, attributes: {}, links: [], events: [],
  ended: true, droppedAttributesCount: 0, droppedEventsCount: 0, droppedLinksCount: 0,
  instrumentationLibrary: { name: '@temporalio/interceptor-workflow' },
}]);
t.shutdown().then(() => console.log(t.mode));
`;

describe('OTLP/HTTP telemetry (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  it('posts spans, workflow sandbox spans included, and metrics as OTLP JSON to <endpoint>/v1/<signal>', async () => {
    const bodies: Array<{ url: string; body: string }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        bodies.push({ url: req.url ?? '', body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    let stdout: string;
    try {
      ({ stdout } = await run(process.execPath, ['-e', CHILD], {
        cwd: repoRoot(), env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` },
      }));
    } finally {
      server.close();
    }
    expect(stdout.trim()).toBe('otlp');
    const traces = bodies.filter((b) => b.url === '/v1/traces').map((b) => JSON.parse(b.body));
    const spans = traces.flatMap((t) => t.resourceSpans.flatMap((r: { scopeSpans: Array<{ spans: unknown[] }> }) => r.scopeSpans.flatMap((s) => s.spans))) as Array<Record<string, unknown>>;
    expect(spans.map((s) => s.name).sort()).toEqual(['RunWorkflow:agentSessionWorkflow', 'cli']);
    expect(spans.find((s) => s.name === 'RunWorkflow:agentSessionWorkflow')).toMatchObject({
      traceId: '0af7651916cd43dd8448eb211c80319c', parentSpanId: 'b7ad6b7169203331',
    });
    const metrics = bodies.filter((b) => b.url === '/v1/metrics').map((b) => b.body).join('');
    expect(metrics).toContain('recur.cell.duration');
  });
});
