import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { KernelClient } from '../../activities/kernel/index';
import { countKernels, initTelemetry, type Telemetry } from '../../observability';

/** The latest value of each data point of a metric, keyed by its attributes. */
function points(all: ResourceMetrics[], name: string): Array<{ attributes: object; value: unknown }> {
  const last = all.at(-1);
  const metric = last?.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  return (metric?.dataPoints ?? []).map((p) => ({ attributes: p.attributes, value: p.value }));
}

describe('Recur metrics', () => {
  let t: Telemetry;
  beforeEach(() => {
    t = initTelemetry({ service: 'recur-test', config: { home: '/nonexistent' }, mode: 'memory' });
  });
  afterEach(() => t.shutdown());

  const collect = async () => {
    await t.flush();
    return t.memory!.metrics.getMetrics();
  };

  it('counts tokens by direction, spend and model latency, by model and provider', async () => {
    t.metrics.recordModelCall({ model: 'gpt-x', provider: 'openai', tokensIn: 100, tokensOut: 7, costUsd: 0.01, latencyMs: 250 });
    t.metrics.recordModelCall({ model: 'gpt-x', provider: 'openai', tokensIn: 50, tokensOut: 3, costUsd: 0.02, latencyMs: 150 });
    const m = await collect();
    const byType = Object.fromEntries(points(m, 'recur.model.tokens').map((p) => [(p.attributes as Record<string, string>)['gen_ai.token.type'], p.value]));
    expect(byType).toEqual({ input: 150, output: 10 });
    expect(points(m, 'recur.model.cost')[0].value).toBeCloseTo(0.03);
    expect(points(m, 'recur.model.duration')[0]).toMatchObject({
      attributes: { 'gen_ai.request.model': 'gpt-x', 'gen_ai.provider.name': 'openai' }, value: expect.objectContaining({ count: 2, sum: 400 }),
    });
  });

  it('records cell latency by status and keeps a running count of active sessions', async () => {
    t.metrics.recordCell({ status: 'ok', durationMs: 12 });
    t.metrics.recordCell({ status: 'error', durationMs: 3 });
    t.metrics.sessionsActive(2);
    t.metrics.sessionsActive(-1);
    const m = await collect();
    expect(points(m, 'recur.cell.duration').map((p) => [(p.attributes as Record<string, string>)['recur.cell.status'], (p.value as { sum: number }).sum]).sort())
      .toEqual([['error', 3], ['ok', 12]]);
    expect(points(m, 'recur.sessions.active')).toEqual([{ attributes: {}, value: 1 }]);
  });

  it('reports the kernels a worker holds: up on start, down on shutdown', async () => {
    const calls: string[] = [];
    const fake = {
      start: async (id: string) => { calls.push(`start ${id}`); return { sessionId: id, kernelId: `k-${id}`, fresh: true }; },
      shutdown: async (id: string) => { calls.push(`shutdown ${id}`); },
    } as unknown as KernelClient;
    const kernels = countKernels(fake, t.metrics);
    await kernels.start('a');
    await kernels.start('b');
    await kernels.start('a');
    expect(points(await collect(), 'recur.kernels.loaded')[0].value).toBe(2);
    await kernels.shutdown('a');
    expect(points(await collect(), 'recur.kernels.loaded')[0].value).toBe(1);
    expect(calls).toEqual(['start a', 'start b', 'start a', 'shutdown a']);
  });
});
