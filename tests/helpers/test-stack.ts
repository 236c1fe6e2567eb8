import { join } from 'node:path';
import { parseConfig } from '../../config';
import { repoRoot } from '../../services/home/repo-root';

export const TEST_SECRET = 'sk-recur-test-secret-never-in-a-kernel';

/**
 * The integration tier's own stack: its own home (wiped each run) and its own port block, so
 * `npm test` never touches a stack the user started with `recur up`. Tools are shared.
 */
export function testStackEnv(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  // Lets two checkouts run their integration tiers side by side (e.g. RECUR_TEST_PORT_OFFSET=1000).
  const offset = Number(base.RECUR_TEST_PORT_OFFSET ?? 0);
  const port = (p: number) => String(p + offset);
  return {
    RECUR_HOME: join(repoRoot(), '.recur', 'test-home'),
    RECUR_TOOLS_DIR: parseConfig(base).config.toolsDir,
    RECUR_KAFKA_PORT: port(29192),
    RECUR_KAFKA_CONTROLLER_PORT: port(29193),
    RECUR_TEMPORAL_PORT: port(27233),
    RECUR_TEMPORAL_HTTP_PORT: port(27243),
    RECUR_TEMPORAL_METRICS_PORT: port(27253),
    RECUR_JUPYTER_PORT: port(28988),
    RECUR_DAEMON_PORT: port(27300),
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    // Short replies keep the real-model test (local-model.test.ts) cheap on a CPU.
    RECUR_LOCAL_MAX_TOKENS: '128',
    // A provider key in the environment that starts the stack: the worker may see it, kernels never.
    OPENAI_API_KEY: TEST_SECRET,
  };
}
