import { lstat, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { repoRoot } from '../home/repo-root';
import { HttpError } from '../../errors';
import { notFound } from './http-error';

/** Where `npm run build` puts the viewer's bundle. */
export const defaultUiDir = (): string => join(repoRoot(), 'dist', 'ui');

const TYPES: ReadonlyMap<string, string> = new Map([
  ['.html', 'text/html; charset=utf-8'],
  ['.js', 'text/javascript; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.map', 'application/json; charset=utf-8'],
  ['.svg', 'image/svg+xml'],
  ['.png', 'image/png'],
  ['.woff2', 'font/woff2'],
]);

/**
 * A plain file name, taken from the raw request path before any decoding: no slash, no percent
 * escape, no leading dot. So `..`, `%2e%2e`, `%2f` and dotfiles never name a file at all.
 */
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

export interface StaticFile {
  type: string;
  bytes: Buffer;
}

/** Reads a regular file (a symlink is not one) directly in `dir`, or null. */
async function plainFile(dir: string, name: string): Promise<Buffer | null> {
  const path = join(dir, name);
  const stat = await lstat(path).catch(() => null);
  return stat?.isFile() ? readFile(path) : null;
}

/** The file a raw `/ui/<rest>` path names; `rest` '' is the page itself. */
export async function readUiFile(dir: string, rest: string): Promise<StaticFile> {
  if (rest === '') {
    const page = await plainFile(dir, 'index.html');
    if (page === null) throw new HttpError(503, 'the viewer is not built: run npm run build', 'ViewerNotBuiltError');
    return { type: 'text/html; charset=utf-8', bytes: page };
  }
  const type = FILE_NAME.test(rest) ? TYPES.get(extname(rest)) : undefined;
  const bytes = type === undefined ? null : await plainFile(dir, rest);
  if (type === undefined || bytes === null) throw notFound('no such file in the viewer');
  return { type, bytes };
}
