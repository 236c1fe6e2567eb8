import { join } from 'node:path';
import { parseConfig } from '../../config';
import { repoRoot } from '../../services/home/repo-root';
import { s3ServerService, type S3ServerSettings } from '../../services/devstack/s3-server';

export const TEST_SECRET = 'sk-recur-test-secret-never-in-a-kernel';

/**
 * The integration tier's own stack: its own home (wiped each run) and its own port block, so
 * `npm test` never touches a stack the user started with `recur up`. Tools are shared.
 */
export function testStackEnv(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const port = (p: number) => String(p + portOffset(base));
  return {
    RECUR_HOME: testHome(),
    RECUR_TOOLS_DIR: parseConfig(base).config.toolsDir,
    RECUR_KAFKA_PORT: port(29192),
    RECUR_KAFKA_CONTROLLER_PORT: port(29193),
    RECUR_TEMPORAL_PORT: port(27233),
    RECUR_TEMPORAL_HTTP_PORT: port(27243),
    RECUR_TEMPORAL_METRICS_PORT: port(27253),
    RECUR_JUPYTER_PORT: port(28988),
    RECUR_DAEMON_PORT: port(27300),
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    // The cap counts every kernel on the one Jupyter server, and the tier's test files run their
    // trees side by side on it: a host of independent users, not one tree (kernel-cap.test.ts sets its own).
    RECUR_MAX_LOADED_KERNELS: '64',
    // Short replies keep the real-model test (local-model.test.ts) cheap on a CPU.
    RECUR_LOCAL_MAX_TOKENS: '128',
    // A provider key in the environment that starts the stack: the worker may see it, kernels never.
    OPENAI_API_KEY: TEST_SECRET,
    // The AWS SDK's notice that its releases from 2027 on need Node 22; the pinned one runs on 20.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

// Lets two checkouts run their integration tiers side by side (e.g. RECUR_TEST_PORT_OFFSET=1000).
const portOffset = (base: NodeJS.ProcessEnv) => Number(base.RECUR_TEST_PORT_OFFSET ?? 0);
const testHome = () => join(repoRoot(), '.recur', 'test-home');

/**
 * The stack's S3-compatible server (VersityGW). Its objects sit beside the test home, not in it:
 * they are another server's storage, as a bucket is in production, and the server writes them
 * with its own modes (the home is owner-only: owner-only-files.test.ts). No AWS variable
 * is set for the whole tier: a test of RECUR_BLOB_STORE points its own store here (s3Env) and
 * creates its own bucket.
 */
export function testS3(base: NodeJS.ProcessEnv = process.env): S3ServerSettings & { endpoint: string } {
  const port = 29200 + portOffset(base);
  return {
    port, endpoint: `http://127.0.0.1:${port}`, dataDir: join(repoRoot(), '.recur', 'test-s3'),
    accessKeyId: 'recur-test', secretAccessKey: 'recur-test-secret-key', region: 'us-east-1',
  };
}

export const testS3Service = () => s3ServerService(testS3());

/** The standard AWS variables that point the SDK at testS3(), with its root user's keys. */
export function s3Env(): Record<string, string> {
  const s = testS3();
  return {
    AWS_ENDPOINT_URL_S3: s.endpoint, AWS_REGION: s.region, AWS_ACCESS_KEY_ID: s.accessKeyId, AWS_SECRET_ACCESS_KEY: s.secretAccessKey,
  };
}
