import { rmSync } from 'node:fs';
import { loadConfig } from '../../config';
import { ownerOnlyUmask } from '../../services/home/owner-only';
import { down, startService, stopService, up } from '../../services/devstack';
import { ensureVersityGw } from '../../services/devstack/s3-server';
import { testS3, testS3Service, testStackEnv } from './test-stack';

/** Starts the real stack for the integration tier; test workers inherit the environment set here. */
export default async function globalSetup(): Promise<void> {
  // An entry point like `recur`: the stack it starts, and the test files' in-process workers, inherit it.
  ownerOnlyUmask();
  Object.assign(process.env, testStackEnv());
  const config = loadConfig();
  const stop = async () => {
    await down(config);
    await stopService(config, testS3Service());
  };
  await stop();
  rmSync(config.home, { recursive: true, force: true });
  rmSync(testS3().dataDir, { recursive: true, force: true });
  const t0 = Date.now();
  const log = (line: string) => process.stderr.write(`[stack] ${line}\n`);
  try {
    ensureVersityGw(config, log);
    await startService(config, testS3Service(), log);
    await up(config, log);
  } catch (e) {
    // Jest skips globalTeardown when globalSetup fails: stop what did start, or it holds the ports.
    await stop();
    throw e;
  }
  process.stderr.write(`[stack] up in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
}
