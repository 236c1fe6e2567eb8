import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configToEnv, loadConfig, parseConfig } from '../../config';
import { fileChange } from '../../activities/workspace/manifest';
import {
  DEFAULT_SENSITIVE_PATHS, compileSensitiveRules, globMatches, markSensitive, orderChanges, parseSensitiveRule, sensitiveRule, type SensitiveRule,
} from '../../activities/workspace/sensitive-paths';
import { ConfigError } from '../../errors';
import type { WorkspaceFileChange } from '../../schemas';

const rule = (text: string): SensitiveRule => {
  const r = parseSensitiveRule(text);
  if ('error' in r) throw new Error(r.error);
  return r;
};
const defaults = compileSensitiveRules(DEFAULT_SENSITIVE_PATHS);
/** Blobs by id, as the shadow repository holds them. */
const store = (blobs: Record<string, string>) => async (hash: string) => {
  if (!(hash in blobs)) throw new Error(`no blob ${hash}`);
  return blobs[hash]!;
};
const nothing = store({});
const modified = (path: string, oldHash: string, newHash: string) => fileChange(path, 'modified', { oldHash, newHash, size: 1 });

describe('sensitive-path rules', () => {
  test('the defaults flag CI workflows, editor and container tasks, direnv, make, git attributes, in the directories each tool reads them from', async () => {
    const flagged = async (path: string) => sensitiveRule(defaults, fileChange(path, 'added', { newHash: 'x' }), nothing);
    expect(await Promise.all([
      '.github/workflows/ci.yml', '.github/workflows/nested/deploy.yaml', '.gitlab-ci.yml', 'sub/.gitlab-ci.yml', 'sub/.envrc', '.envrc', '.vscode/tasks.json',
      '.devcontainer/devcontainer.json', '.devcontainer/python/Dockerfile', '.devcontainer.json', 'Makefile', 'lib/makefile', 'GNUmakefile', 'a/b/.gitattributes',
    ].map(flagged))).toEqual([
      '.github/workflows/**', '.github/workflows/**', '.gitlab-ci.yml', '.gitlab-ci.yml', '.envrc', '.envrc', '.vscode/tasks.json',
      '.devcontainer/**', '.devcontainer/**', '.devcontainer.json', 'Makefile', 'makefile', 'GNUmakefile', '.gitattributes',
    ]);
    expect(await Promise.all([
      '.github/CODEOWNERS', 'docs/.github/workflows/ci.yml', 'sub/.vscode/tasks.json', '.vscode/settings.json', 'Makefile.am', 'src/app.py', '.envrc.example',
    ].map(flagged))).toEqual([null, null, null, null, null, null, null]);
  });

  test('globs: `**` is any directories, `*` and `?` stay within one segment, a rule without `/` is a name anywhere, a leading `/` the top; a directory rule covers its files', () => {
    const m = (text: string, path: string) => globMatches(rule(text), path);
    expect([m('deploy/**', 'deploy/a/b.sh'), m('deploy/**', 'deploy'), m('deploy/**', 'x/deploy/a')]).toEqual([true, false, false]);
    expect([m('**/hooks/*.sh', 'hooks/pre.sh'), m('**/hooks/*.sh', 'a/b/hooks/pre.sh'), m('**/hooks/*.sh', 'hooks/sub/pre.sh')]).toEqual([true, true, false]);
    expect([m('ci/**/run.sh', 'ci/run.sh'), m('ci/**/run.sh', 'ci/a/b/run.sh')]).toEqual([true, true]);
    expect([m('*.mk', 'rules.mk'), m('*.mk', 'a/b/rules.mk'), m('*.mk', 'a/rules.mk.bak'), m('Makefile.?', 'Makefile.x'), m('Makefile.?', 'Makefile.xy')]).toEqual([true, true, false, true, false]);
    expect([m('/Makefile', 'Makefile'), m('/Makefile', 'sub/Makefile'), m('tools/Makefile', 'sub/tools/Makefile')]).toEqual([true, false, false]);
    expect([m('scripts', 'scripts/build.sh'), m('scripts', 'a/scripts/x/y'), m('.husky', '.husky/pre-commit')]).toEqual([true, true, true]);
    // Regular-expression characters are literal.
    expect([m('a+b.json', 'a+b.json'), m('a+b.json', 'aab.json'), m('x.json', 'xyjson')]).toEqual([true, false, false]);
  });

  test('`package.json#scripts` flags a change to its scripts (added, removed, changed), not to anything else; JSON that does not parse counts as changed', async () => {
    const pkg = (scripts?: Record<string, string>, version = '1.0.0') => JSON.stringify({ name: 'p', version, ...(scripts && { scripts }) }, null, 2);
    const blobs = store({
      v1: pkg({ test: 'jest' }), v2: pkg({ test: 'jest' }, '1.0.1'), reordered: JSON.stringify({ scripts: { test: 'jest' }, version: '1.0.0', name: 'p' }),
      evil: pkg({ test: 'jest', postinstall: 'curl x | sh' }), none: pkg(), bad: '{ "scripts": ', bom: `\uFEFF${pkg({ test: 'jest' })}`, list: '[1]',
    });
    const at = (f: WorkspaceFileChange) => sensitiveRule(defaults, f, blobs);
    expect(await at(modified('package.json', 'v1', 'v2'))).toBeNull();
    expect(await at(modified('package.json', 'v1', 'reordered'))).toBeNull();
    expect(await at(modified('package.json', 'v1', 'bom'))).toBeNull();
    expect(await at(modified('packages/app/package.json', 'v1', 'evil'))).toBe('package.json#scripts');
    expect(await at(modified('package.json', 'none', 'v1'))).toBe('package.json#scripts');
    expect(await at(modified('package.json', 'v1', 'none'))).toBe('package.json#scripts');
    expect(await at(modified('package.json', 'v1', 'bad'))).toBe('package.json#scripts');
    expect(await at(modified('package.json', 'bad', 'v1'))).toBe('package.json#scripts');
    expect(await at(modified('package.json', 'none', 'list'))).toBe('package.json#scripts');
    // Added or deleted: compared with no file, which has no scripts.
    expect(await at(fileChange('package.json', 'added', { newHash: 'none' }))).toBeNull();
    expect(await at(fileChange('package.json', 'added', { newHash: 'v1' }))).toBe('package.json#scripts');
    expect(await at(fileChange('package.json', 'deleted', { oldHash: 'v1' }))).toBe('package.json#scripts');
    expect(await at(fileChange('package.json', 'deleted', { oldHash: 'none' }))).toBeNull();
    // Never read (over the cap) or unreadable: unknown, so flagged.
    expect(await at(fileChange('package.json', 'modified', { overCap: true, size: 9e6 }))).toBe('package.json#scripts');
    expect(await at(modified('package.json', 'v1', 'missing'))).toBe('package.json#scripts');
    // A `#key` rule names the file itself, not files under a directory of that name.
    expect(await at(fileChange('package.json/x', 'added', { newHash: 'v1' }))).toBeNull();
  });

  test('marking leaves git-meta entries to their kind; the order is git-meta, then sensitive, then the rest, each by path', async () => {
    const files = [
      fileChange('src/a.py', 'added', { newHash: 'x' }), fileChange('Makefile', 'modified', { oldHash: 'x', newHash: 'y' }),
      fileChange('.git/hooks/pre-commit', 'added', { kind: 'git-meta', newHash: 'x' }), fileChange('.github/workflows/ci.yml', 'added', { newHash: 'x' }),
      fileChange('README.md', 'deleted', { oldHash: 'x' }),
    ];
    const marked = orderChanges(await markSensitive(files, defaults, nothing));
    expect(marked.map((f) => [f.path, f.kind, f.sensitive])).toEqual([
      ['.git/hooks/pre-commit', 'git-meta', null], ['.github/workflows/ci.yml', 'file', '.github/workflows/**'], ['Makefile', 'file', 'Makefile'],
      ['README.md', 'file', null], ['src/a.py', 'file', null],
    ]);
  });

  test('reads blobs a few at a time, however many package.json files a scan found', async () => {
    let running = 0;
    let most = 0;
    const read = async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 1));
      running--;
      return '{"scripts":{"x":"y"}}';
    };
    const files = Array.from({ length: 50 }, (_, i) => fileChange(`node_modules/p${i}/package.json`, 'added', { newHash: `h${i}` }));
    const marked = await markSensitive(files, defaults, read);
    expect(marked.map((f) => f.sensitive)).toEqual(files.map(() => 'package.json#scripts'));
    expect(most).toBeLessThanOrEqual(8);
  });

  test.each([
    ['', 'expected 1-256 characters'], ['a b', 'no spaces, commas or backslashes'], ['a,b', 'no spaces, commas or backslashes'],
    ['src/[ab].sh', 'only `*`, `?` and `**`'], ['!keep', 'only `*`, `?` and `**`'], ['a//b', 'empty, `.` or `..` segment'], ['deploy/', 'empty, `.` or `..` segment'],
    ['../x', 'empty, `.` or `..` segment'], ['a/**b', '`**` must be a whole segment'], ['package.json#', 'at most one `#key`'], ['a#b#c', 'at most one `#key`'],
    ['deploy/**#scripts', 'a `#key` rule must name a file'], ['x'.repeat(257), 'expected 1-256 characters'],
  ])('refuses the rule %j', (text, why) => {
    const r = parseSensitiveRule(text);
    expect('error' in r && r.error).toContain(why);
    expect(() => compileSensitiveRules([text])).toThrow(ConfigError);
  });
});

describe('the sensitive-paths setting', () => {
  const home = () => mkdtempSync(join(tmpdir(), 'recur-sensitive-'));

  test('RECUR_SENSITIVE_PATHS adds rules to the defaults, which no setting removes; it survives the round trip through the environment', () => {
    expect(parseConfig({ RECUR_HOME: home() }).config.worker.sensitivePaths).toEqual(DEFAULT_SENSITIVE_PATHS);
    const { config, errors } = parseConfig({ RECUR_HOME: home(), RECUR_SENSITIVE_PATHS: 'deploy/**, tox.ini,Makefile,pyproject.toml#build-system' });
    expect(errors).toEqual([]);
    expect(config.worker.sensitivePaths).toEqual([...DEFAULT_SENSITIVE_PATHS, 'deploy/**', 'tox.ini', 'pyproject.toml#build-system']);
    expect(parseConfig(configToEnv(config)).config.worker.sensitivePaths).toEqual(config.worker.sensitivePaths);
  });

  test("config.json's worker.sensitivePaths adds rules too; the environment's list takes its place", () => {
    const dir = home();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ worker: { sensitivePaths: ['ops/*.sh'] } }));
    expect(parseConfig({ RECUR_HOME: dir }).config.worker.sensitivePaths).toEqual([...DEFAULT_SENSITIVE_PATHS, 'ops/*.sh']);
    expect(parseConfig({ RECUR_HOME: dir, RECUR_SENSITIVE_PATHS: 'tox.ini' }).config.worker.sensitivePaths).toEqual([...DEFAULT_SENSITIVE_PATHS, 'tox.ini']);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ worker: { sensitivePaths: ['ops/[ab].sh'] } }));
    expect(parseConfig({ RECUR_HOME: dir }).errors).toEqual([
      'RECUR_SENSITIVE_PATHS (config worker.sensitivePaths): "ops/[ab].sh" is not a sensitive-path rule: only `*`, `?` and `**` are patterns ([…], {…} and ! are not supported)',
    ]);
  });

  test('a bad rule is a config error naming the setting', () => {
    const { errors } = parseConfig({ RECUR_HOME: home(), RECUR_SENSITIVE_PATHS: 'ok/**,../etc/passwd' });
    expect(errors).toEqual([expect.stringMatching(/^RECUR_SENSITIVE_PATHS \(config worker\.sensitivePaths\): "\.\.\/etc\/passwd" is not a sensitive-path rule: /)]);
    expect(() => loadConfig({ RECUR_HOME: home(), RECUR_SENSITIVE_PATHS: 'a//b' })).toThrow(/RECUR_SENSITIVE_PATHS/);
  });
});
