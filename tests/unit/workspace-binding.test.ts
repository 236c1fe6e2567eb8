import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWorkspace, refusedWorkspace } from '../../services/daemon/workspace-input';
import { createWorkspaces } from '../../services/sandbox/workspace-binding';

describe('which directory a session works in', () => {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'recur-home-')));
  const dirOf = (id: string) => join(home, 'run', 'sb', id.replace(/\//g, '_'));
  const keyOf = (id: string) => `key-${id}`;

  it("a child shares its nearest bound ancestor's workspace; an unbound tree its root's directory under the home", () => {
    const book = createWorkspaces(home, dirOf, keyOf);
    book.record('r', { dir: '/src/repo', group: '/src/repo', shared: [] });
    book.record('r/wt', { dir: '/h/worktrees/x', group: '/src/repo', shared: ['/src/repo/.git'], worktree: { parent: '/src/repo', base: 'abc' } });
    expect(book.of('r').dir).toBe('/src/repo');
    expect(book.of('r/kid/grandkid').dir).toBe('/src/repo');
    expect(book.of('r/wt/kid')).toMatchObject({ dir: '/h/worktrees/x', group: '/src/repo' });
    expect(book.of('plain/kid')).toEqual({ dir: join(home, 'workspaces', 'key-plain'), group: join(home, 'workspaces', 'key-plain'), shared: [] });
    // Another process (a restarted worker) reads the same records from disk.
    expect(createWorkspaces(home, dirOf, keyOf).of('r/kid').dir).toBe('/src/repo');
    expect(createWorkspaces(home, dirOf, keyOf).own('r/kid')).toBeNull();
  });

  it('refuses the system, the home and anything holding it', () => {
    expect(refusedWorkspace('/', home)).toMatch(/root directory/);
    expect(refusedWorkspace('/usr/lib', home)).toMatch(/system \(\/usr\)/);
    expect(refusedWorkspace('/etc', home)).toMatch(/system/);
    expect(refusedWorkspace(join(home, 'workspaces'), home)).toMatch(/inside the Recur home/);
    expect(refusedWorkspace(home, home)).toMatch(/inside the Recur home/);
    expect(refusedWorkspace(join(home, '..'), home)).toMatch(/holds the Recur home/);
    expect(refusedWorkspace('/usrlocal-repo', home)).toBeNull();
    expect(refusedWorkspace('/src/repo', home)).toBeNull();
  });

  it('cwd must be an absolute path to an existing directory; links are resolved, and each problem is named', () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'recur-cwd-')));
    mkdirSync(join(root, 'repo'));
    writeFileSync(join(root, 'file'), '');
    symlinkSync(join(root, 'repo'), join(root, 'link'));
    expect(parseWorkspace(join(root, 'link'), home)).toBe(join(root, 'repo'));
    expect(() => parseWorkspace('repo', home)).toThrow(/cwd must be an absolute path, got "repo"/);
    expect(() => parseWorkspace(join(root, 'missing'), home)).toThrow(`cwd ${join(root, 'missing')} does not exist`);
    expect(() => parseWorkspace(join(root, 'file'), home)).toThrow(`cwd ${join(root, 'file')} is not a directory`);
    symlinkSync(home, join(root, 'home-link'));
    expect(() => parseWorkspace(join(root, 'home-link'), home)).toThrow(/cannot be a workspace: it is inside the Recur home/);
  });
});
