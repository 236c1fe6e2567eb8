import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, sep } from 'node:path';
import { badRequest } from './http-error';

/** The host's own trees: a workspace there would open the system to the kernel (its one read-write mount, made writable by ACL). */
const SYSTEM = ['/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/proc', '/run', '/sbin', '/sys', '/usr'];

const within = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/**
 * Why `dir` (absolute, symlinks resolved) cannot be a workspace, or null: the system, or anything
 * that is, holds or lies inside the Recur home (its secrets, keys and every session's files).
 */
export function refusedWorkspace(dir: string, home: string): string | null {
  if (dir === '/') return 'the root directory holds the whole host';
  const system = SYSTEM.find((d) => within(dir, d));
  if (system) return `it is part of the system (${system})`;
  if (within(dir, home)) return `it is inside the Recur home (${home})`;
  if (within(home, dir)) return `it holds the Recur home (${home})`;
  return null;
}

/** `cwd` of `POST /v1/sessions`: an existing directory, returned with its symlinks resolved; a 400 naming it otherwise. */
export function parseWorkspace(value: unknown, home: string): string {
  if (typeof value !== 'string' || !isAbsolute(value)) throw badRequest(`cwd must be an absolute path, got ${JSON.stringify(value)}`);
  let dir: string;
  try {
    dir = realpathSync(value);
  } catch {
    throw badRequest(`cwd ${value} does not exist`);
  }
  if (!statSync(dir).isDirectory()) throw badRequest(`cwd ${value} is not a directory`);
  let realHome = home;
  try {
    realHome = realpathSync(home);
  } catch { /* a home not made yet is named as configured */ }
  const why = refusedWorkspace(dir, realHome);
  if (why) throw badRequest(`cwd ${value} cannot be a workspace: ${why}`);
  return dir;
}
