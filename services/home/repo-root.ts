import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The Recur checkout this code runs from (works from source and from dist/). */
export function repoRoot(from = __dirname): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).name === 'recur') return dir;
  }
  throw new Error(`no recur package.json above ${from}`);
}
