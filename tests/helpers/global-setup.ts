import { rmSync } from 'node:fs';
import { loadConfig } from '../../config';
import { ownerOnlyUmask } from '../../services/home/owner-only';
import { down, up } from '../../services/devstack';
import { testStackEnv } from './test-stack';

/** Starts the real stack for the integration tier; test workers inherit the environment set here. */
export default async function globalSetup(): Promise<void> {
  // An entry point like `recur`: the stack it starts, and the test files' in-process workers, inherit it.
  ownerOnlyUmask();
  Object.assign(process.env, testStackEnv());
  const config = loadConfig();
  await down(config);
  rmSync(config.home, { recursive: true, force: true });
  const t0 = Date.now();
  try {
    await up(config, (line) => process.stderr.write(`[stack] ${line}\n`));
  } catch (e) {
    // Jest skips globalTeardown when globalSetup fails: stop what did start, or it holds the ports.
    await down(config);
    throw e;
  }
  process.stderr.write(`[stack] up in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
}
