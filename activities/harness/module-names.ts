import { execFile } from 'node:child_process';
import { HarnessEditError } from '../../errors';
import type { ProposedEdit } from '../../workflows/harness/harness-types';

/** Every top-level name `import` finds before a harness skill: the standard library, builtins, and what is installed or on the path. */
const LIST_MODULES = [
  'import json, pkgutil, sys',
  'names = set(sys.stdlib_module_names) | set(sys.builtin_module_names) | {m.name for m in pkgutil.iter_modules()}',
  'print(json.dumps(sorted(names)))',
].join('\n');

/** The names taken in the kernels' Python; asked of that interpreter once, on first use. */
export type ModuleNames = () => Promise<ReadonlySet<string>>;

export function pythonModuleNames(python: string, pythonPath: string): ModuleNames {
  let names: Promise<ReadonlySet<string>> | null = null;
  const ask = () => new Promise<ReadonlySet<string>>((resolve, reject) => {
    execFile(python, ['-c', LIST_MODULES], { env: { PATH: process.env.PATH, PYTHONPATH: pythonPath }, timeout: 30_000 }, (err, stdout) => {
      if (err) reject(new HarnessEditError(`could not list the kernel's Python modules to check a skill name: ${err.message}`));
      else resolve(new Set(JSON.parse(stdout) as string[]));
    });
  });
  return () => {
    names ??= ask().catch((e: unknown) => {
      names = null;
      throw e;
    });
    return names;
  };
}

/**
 * The edits with a refusal on each skill that would take a module's name: SkillFinder comes last
 * on sys.meta_path, so `import json` would always load the module and never the skill.
 */
export async function refuseShadowingSkills(edits: ProposedEdit[], names: ModuleNames): Promise<ProposedEdit[]> {
  if (!edits.some((e) => e.kind === 'skill' && e.action !== 'delete')) return edits;
  const taken = await names();
  return edits.map((e) => (e.kind === 'skill' && e.action !== 'delete' && taken.has(String(e.name))
    ? { ...e, refusal: `"${String(e.name)}" is the name of a standard-library or installed Python module; a skill of that name could never be imported (the module wins): choose another name` }
    : e));
}
