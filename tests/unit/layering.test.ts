import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../../services/home/repo-root';

/**
 * The tree's layering, checked on its own imports (type-only ones too: they are structure).
 * Bottom up: errors, schemas, log, config, observability, activities and workflows, then
 * services/; the viewer's page (ui/), bench/ and tests/ sit on top.
 */
const root = repoRoot();
const TOP = ['errors', 'schemas', 'log', 'config', 'observability', 'activities', 'workflows', 'services', 'ui', 'bench', 'tests'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [relative(root, path)] : [];
  });
}

/** The repository files a file imports, by the file each relative specifier resolves to. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
  return importedFiles.filter((i) => i.fileName.startsWith('.')).map((i) => {
    const base = resolve(root, dirname(file), i.fileName);
    const hit = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), base].find((p) => existsSync(p) && !p.endsWith('/'));
    if (!hit) throw new Error(`${file} imports ${i.fileName}, which resolves to no file`);
    return relative(root, hit);
  });
}

const files = TOP.filter((d) => existsSync(join(root, d))).flatMap((d) => sourceFiles(join(root, d)));
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const layer = (file: string) => file.split('/')[0];
const arrows = (from: (f: string) => boolean, to: (f: string) => boolean) =>
  [...graph].flatMap(([f, deps]) => (from(f) ? deps.filter(to).map((d) => `${f} -> ${d}`) : []));

/** Every cycle's files (Tarjan's strongly connected components of more than one file, or a file importing itself). */
function cycles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      on.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const f of graph.keys()) if (!index.has(f)) visit(f);
  return found;
}

describe('the layering of the tree (its imports)', () => {
  it('reads the imports it checks: every layer has files (an import that resolves to no file fails the whole file)', () => {
    for (const d of TOP) expect(files.some((f) => layer(f) === d)).toBe(true);
    expect(graph.get('services/daemon/daemon.ts')).toEqual(expect.arrayContaining(['services/projector/tree-cache.ts', 'errors/index.ts']));
  });

  it('nothing below services/ imports services/', () => {
    const below = new Set(['errors', 'schemas', 'log', 'config', 'observability', 'activities', 'workflows']);
    expect(arrows((f) => below.has(layer(f)), (d) => layer(d) === 'services')).toEqual([]);
  });

  it('errors/ imports nothing of the tree; schemas/ and log/ nothing above them', () => {
    expect(arrows((f) => layer(f) === 'errors', (d) => layer(d) !== 'errors')).toEqual([]);
    expect(arrows((f) => ['schemas', 'log'].includes(layer(f)), (d) => !['errors', 'schemas', 'log'].includes(layer(d)))).toEqual([]);
  });

  it('nothing that runs in production imports the dev stack; only the CLI, which starts and stops it, does', () => {
    const production = (f: string) => !['ui', 'bench', 'tests'].includes(layer(f)) && !f.startsWith('services/devstack/') && !f.startsWith('services/cli/');
    expect(arrows(production, (d) => d.startsWith('services/devstack/'))).toEqual([]);
  });

  it('nothing outside tests/ imports tests/ (bench/ included)', () => {
    expect(arrows((f) => layer(f) !== 'tests', (d) => layer(d) === 'tests')).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cycles()).toEqual([]);
  });
});
