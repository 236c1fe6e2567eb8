import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync, existsSync } from 'node:fs';
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
 * Names and file paths were validated when the edit was applied (no `..`, no absolute paths).
 */
export function materialiseSkill(root: string, name: string, v: SkillValue): string {
  const hash = createHash('sha256').update(JSON.stringify([name, v])).digest('hex').slice(0, 16);
  const dir = join(root, hash, name);
  if (existsSync(dir)) return dir;
  const tmp = join(root, `${hash}.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  for (const [path, text] of Object.entries({ ...v.files, 'SKILL.md': skillMarkdown(name, v) })) {
    const file = join(tmp, name, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  mkdirSync(root, { recursive: true });
  try {
    renameSync(tmp, join(root, hash));
  } catch (e) {
    // Another worker wrote the same version first: its bytes are ours.
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(dir)) throw e;
  }
  return dir;
}
