import { fileChange } from '../../activities/workspace/manifest';
import { workspaceFileRows } from '../../ui/model/workspace-files';

describe("the viewer's workspace file list", () => {
  it('lists git metadata, then sensitive paths with their rule, then the rest, each by path, whatever order the event holds', () => {
    const rows = workspaceFileRows([
      fileChange('src/a.py', 'added', {}), fileChange('package.json', 'modified', { sensitive: 'package.json#scripts' }),
      fileChange('.git/hooks/pre-commit', 'added', { kind: 'git-meta' }), fileChange('.github/workflows/ci.yml', 'added', { sensitive: '.github/workflows/**' }),
      fileChange('README.md', 'deleted', {}),
    ]);
    expect(rows.map((r) => [r.file.path, r.mark?.cls ?? null, r.mark?.label ?? null])).toEqual([
      ['.git/hooks/pre-commit', 'file-git-meta', 'git metadata'],
      ['.github/workflows/ci.yml', 'file-sensitive', 'sensitive: .github/workflows/**'],
      ['package.json', 'file-sensitive', 'sensitive: package.json#scripts'],
      ['README.md', null, null],
      ['src/a.py', null, null],
    ]);
    expect(rows[2]!.mark!.title).toContain('matched the rule package.json#scripts');
  });

  it('marks nothing in a scan logged before sensitive paths existed (its files read back as plain files)', () => {
    expect(workspaceFileRows([fileChange('b', 'added', {}), fileChange('a', 'added', {})]).map((r) => [r.file.path, r.mark])).toEqual([['a', null], ['b', null]]);
  });
});
