import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The key session tokens are derived from, shared by every worker of one Recur home so a
 * restarted worker honours the tokens kernels already hold. Created once, owner-only; link(2)
 * publishes it atomically, so two workers starting together agree on one secret.
 */
export function loadBridgeSecret(file: string): Buffer {
  try {
    return readSecret(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, randomBytes(32).toString('hex'), { mode: 0o600 });
  try {
    linkSync(tmp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
  return readSecret(file);
}

function readSecret(file: string): Buffer {
  const hex = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file} is not a bridge secret (64 hex characters); delete it and restart the worker`);
  return Buffer.from(hex, 'hex');
}
