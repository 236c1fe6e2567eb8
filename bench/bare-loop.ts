import type { KernelClient } from '../activities/kernel';
import type { ChatMessage, Model } from '../activities/model';
import { BASE_SYSTEM_PROMPT } from '../activities/prompt/system-prompt';
import { renderOutputs } from '../activities/run-cell';

/**
 * The step-overhead baseline: the RLM loop with nothing durable around it. The transcript lives
 * in memory, the model is called directly, the cell goes through the same kernel client; no
 * Temporal, no Kafka, no blob store. Returns each step's wall time (model call + cell) in ms;
 * the final answer (a reply without code) is not a step. `beforeCell`, awaited between the reply
 * and its cell, adds one part of a durable step to it (bench/step-parts.ts).
 */
export async function runBareLoop(
  deps: { kernels: KernelClient; model: Model; beforeCell?: (step: number) => Promise<void> }, sessionId: string, task: string,
): Promise<number[]> {
  const { kernels, model, beforeCell } = deps;
  await kernels.start(sessionId);
  const messages: ChatMessage[] = [{ role: 'user', content: task }];
  const times: number[] = [];
  try {
    for (let callIndex = 0; ; callIndex++) {
      const t0 = performance.now();
      const res = await model.complete({ system: BASE_SYSTEM_PROMPT, messages, tools: 'python', agent: 'root', callIndex });
      if (res.code === null) return times;
      const id = res.toolCallId ? { toolCallId: res.toolCallId } : {};
      messages.push({ role: 'assistant', content: res.text, code: res.code, ...id });
      await beforeCell?.(callIndex);
      const out = await kernels.execute(sessionId, res.code, { timeoutMs: 60_000 });
      if (out.status !== 'ok') throw new Error(`bare loop: cell ${callIndex} ended ${out.status}: ${out.error?.evalue ?? ''}`);
      messages.push({ role: 'tool', content: renderOutputs(out) || '[no output]', ...id });
      times.push(performance.now() - t0);
    }
  } finally {
    await kernels.shutdown(sessionId);
  }
}
