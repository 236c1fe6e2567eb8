import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export function newDaemonToken(): string {
  return randomBytes(32).toString('hex');
}

/** Writes the token readable by its owner only; via rename, so a client never reads half a token. */
export function writeDaemonToken(file: string, token: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, token, { mode: 0o600 });
  chmodSync(tmp, 0o600); // a leftover tmp file keeps its old mode through writeFileSync
  renameSync(tmp, file);
}

export function removeDaemonToken(file: string): void {
  rmSync(file, { force: true });
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether a presented secret is the expected one. Both sides are hashed first so the compare
 * always sees equal lengths and runs in constant time, whatever was presented.
 */
export function secretMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/** Whether an Authorization header carries `Bearer <token>`; constant time even for a malformed header. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = /^Bearer (\S+)$/.exec(header ?? '')?.[1];
  const same = secretMatches(presented ?? '', token);
  return presented !== undefined && same;
}
