import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SkillValue } from '../../workflows/harness/harness-types';

/** SKILL.md: the metadata the prompt shows and a person reads, written from the entry. */
export function skillMarkdown(name: string, v: SkillValue): string {
  return `---\nname: ${name}\ndescription: ${JSON.stringify(v.description)}\n---\n\n# ${name}\n\n${v.description}\n\n## API\n\n${v.api || '(see __init__.py)'}\n`;
}

/**
 * Writes a skill's package under `root/<content hash>/<name>/` and returns that directory. The
 * path is a function of the content, so a skill is written once per version, a kernel that
 * imported an older version keeps it intact, and concurrent writers produce the same bytes.
 * Before a directory is reused it is checked against the harness state, file by file: one that
 * was edited, added to or half-deleted on disk is rewritten, never handed to a kernel as it is.
 * Names and file paths were validated when the edit was applied (no `..`, no absolute paths).
 */
export function materialiseSkill(root: string, name: string, v: SkillValue): string {
  const files: Record<string, string> = { ...v.files, 'SKILL.md': skillMarkdown(name, v) };
  const hash = createHash('sha256').update(JSON.stringify([name, v])).digest('hex').slice(0, 16);
  const top = join(root, hash);
  const dir = join(top, name);
  if (holdsExactly(top, name, files)) return dir;
  const tmp = `${top}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  for (const [path, text] of Object.entries(files)) {
    const file = join(tmp, name, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    // The kernel reads it as its own uid; the skills directory is mounted into one session's sandbox only.
    chmodSync(file, 0o644);
    for (let d = dirname(file); d.length >= tmp.length; d = dirname(d)) chmodSync(d, 0o755);
  }
  if (existsSync(top)) {
    // Not the skill any more: moved aside whole (a rename, so no kernel sees it half-replaced).
    const stale = `${top}.stale-${randomUUID()}`;
    try {
      renameSync(top, stale);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    rmSync(stale, { recursive: true, force: true });
  }
  try {
    renameSync(tmp, top);
  } catch (e) {
    // Another worker wrote the same version first: its bytes are ours.
    rmSync(tmp, { recursive: true, force: true });
    if (!holdsExactly(top, name, files)) throw e;
  }
  return dir;
}

/**
 * Whether `top` holds the skill's package and nothing else: `name/` with exactly these files
 * (regular files, these bytes). A planted module or bytecode cache counts as tampering too,
 * since Python would import it.
 */
function holdsExactly(top: string, name: string, files: Record<string, string>): boolean {
  let found: string[];
  try {
    if (readdirSync(top).join('/') !== name) return false;
    found = listFiles(join(top, name)).sort();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw e;
  }
  const wanted = Object.keys(files).sort();
  return found.join('\0') === wanted.join('\0') && wanted.every((p) => readFileSync(join(top, name, p), 'utf8') === files[p]);
}

/** Every entry under `dir` as a `/`-separated relative path; anything but a file or directory (a symlink) never matches. */
function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) return listFiles(join(dir, e.name), rel);
    return [e.isFile() ? rel : `${rel}\0not a regular file`];
  });
}
