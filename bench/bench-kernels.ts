import { createKernelClient, type KernelClient } from '../activities/kernel';
import type { RecurConfig } from '../config';
import { jupyterConnection } from '../config/home-paths';
import { repoRoot } from '../services/home/repo-root';
import { startHostBridge } from '../services/host-bridge';
import { createKernelHost } from '../services/sandbox';

/** The kernel client a worker builds (same Jupyter, bridge and kernel package), without a worker around it. */
export async function benchKernels(config: RecurConfig): Promise<{ kernels: KernelClient; close(): Promise<void> }> {
  const bridge = await startHostBridge();
  const kernels = createKernelClient({ ...jupyterConnection(config), host: createKernelHost(config, bridge), pythonPath: `${repoRoot()}/kernel` });
  return {
    kernels,
    async close() {
      kernels.dispose();
      await bridge.close();
    },
  };
}
