import { DEFAULT_RETRY_POLICY } from '../activities/model/retry';
import { sessionEvents, sessionInput, startBenchWorker } from './bench-worker';
import { size, type BenchContext, type Benchmark } from './benchmark';
import { compare } from './report';
import { startThrottlingOpenAIServer } from './throttling-openai-server';
import type { SessionResult } from '../workflows/session-types';

const cellCode = (i: number) => `x${i} = sum(range(100))\nprint(x${i})`;

/** One night: a session of `steps` cells on the local OpenAI wire server, throttled as `throttles` says. */
async function night(ctx: BenchContext, steps: number, throttles: (call: number) => number) {
  const codes = Array.from({ length: steps }, (_, i) => cellCode(i));
  const server = await startThrottlingOpenAIServer(codes, throttles, 10);
  const env = { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-bench-dummy' };
  const worker = await startBenchWorker(ctx.config, env);
  try {
    const input = sessionInput(ctx.config, 'openai/bench-model', { maxTurns: steps + 5 });
    const t0 = Date.now();
    const result = (await worker.client.workflow.execute('agentSessionWorkflow', { taskQueue: worker.taskQueue, workflowId: input.sessionId, args: [input] })) as SessionResult;
    const wallMs = Date.now() - t0;
    if (result.status !== 'completed') throw new Error(`bench session ${input.sessionId} failed: ${result.kind}: ${result.reason}`);
    const events = await sessionEvents(ctx.config, input.sessionId);
    const logged = events.reduce((n, e) => (e.event.type === 'ModelCalled' ? n + e.event.tokensIn + e.event.tokensOut : n), 0);
    const waits = events.filter((e) => e.event.type === 'ModelThrottled').length;
    return { billed: server.billed(), logged, waits, wallMs };
  } finally {
    await worker.close();
    await server.close();
  }
}

/**
 * Tokens billed over a throttled night against a night with none, same session, same replies:
 * a throttled call is refused unbilled and retried, so the ratio must be 1 (never above: a
 * call billed twice). Every few calls the provider throttles past every in-call retry, so the
 * session waits the reset out durably (ModelThrottled) and calls again; the others are one 429
 * slept through inside the call. Only tokens are compared: the waits are the provider's.
 */
export const throttledNight: Benchmark = {
  name: 'throttled-night',
  async run(ctx) {
    const steps = size(ctx, 40, 12);
    // Past the in-call attempts: the call ends throttled, and the workflow waits.
    const durable = DEFAULT_RETRY_POLICY.maxAttempts;
    const throttleOf = (call: number) => (call % 8 === 1 ? durable : call % 8 === 5 ? 1 : 0);
    const calls = steps + 1;
    const planned = Array.from({ length: calls }, (_, n) => throttleOf(n)).reduce((a, b) => a + b, 0);
    ctx.log(`throttled-night: ${steps} steps, unthrottled, then ${planned} 429s`);
    const calm = await night(ctx, steps, () => 0);
    const stormy = await night(ctx, steps, throttleOf);
    return [compare({
      name: 'throttled-night/tokens', title: `Tokens billed by the provider: a night of ${stormy.billed.throttled} throttles against one with none`, unit: 'tokens', better: 'lower',
      subject: { label: `${stormy.billed.throttled} throttles, ${stormy.waits} durable waits`, samples: [stormy.billed.tokens] },
      baseline: { label: 'no throttle', samples: [calm.billed.tokens] },
      limits: 'the local OpenAI wire server bills answered calls only, as the API does; tokens logged by Recur are in the details',
      details: {
        steps, throttles: stormy.billed.throttled, durableWaits: stormy.waits,
        answeredCalls: { throttled: stormy.billed.answered, calm: calm.billed.answered },
        loggedTokens: { throttled: stormy.logged, calm: calm.logged },
        wallMs: { throttled: stormy.wallMs, calm: calm.wallMs },
      },
    })];
  },
};
