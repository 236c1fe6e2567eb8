import type { KernelClient } from '../activities/kernel/index';
import type { RecurMetrics } from './metrics';

/**
 * The same kernel client, counting the sessions whose kernel this process holds (started and not
 * yet shut down) for the `recur.kernels.loaded` gauge; idle unload shows as the count falling.
 */
export function countKernels(kernels: KernelClient, metrics: RecurMetrics): KernelClient {
  const held = new Set<string>();
  metrics.observeKernels(() => held.size);
  return {
    ...kernels,
    async start(sessionId, opts) {
      const info = await kernels.start(sessionId, opts);
      held.add(sessionId);
      return info;
    },
    async shutdown(sessionId) {
      try {
        await kernels.shutdown(sessionId);
      } finally {
        held.delete(sessionId);
      }
    },
  };
}
