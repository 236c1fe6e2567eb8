import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { StackError } from '../../errors';

/**
 * A secret that outlives the processes using it (the host bridge's token key, the Jupyter
 * server's token): a restarted worker honours the tokens kernels hold, a restarted Jupyter
 * server accepts the worker's. Created once, owner-only, as hex; link(2) publishes it
 * atomically, so two processes starting together agree on one. Delete the file to rotate it.
 */
export function ownerOnlySecret(file: string, bytes = 32): string {
  if (existsSync(file)) return readSecret(file);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, randomBytes(bytes).toString('hex'), { mode: 0o600 });
  try {
    linkSync(tmp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
  return readSecret(file);
}

function readSecret(file: string): string {
  const hex = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{32,}$/.test(hex)) throw new StackError('secrets', `${file} is not a secret Recur wrote (hex)`, `delete ${file} and run \`recur up\` again`);
  return hex;
}
