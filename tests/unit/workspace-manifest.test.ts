import {
  decodeManifest, encodeManifest, manifestOf, mergeChanges, overCapChanges, parseDiffTree, sameManifest,
} from '../../activities/workspace/manifest';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const Z = '0'.repeat(40);

describe('workspace manifest (pure)', () => {
  test('encoding is canonical: the over-cap list is sorted, so the same content gives the same bytes and hash', () => {
    const m1 = manifestOf(A, [['z.bin', 5], ['a.bin', 7]]);
    const m2 = manifestOf(A, [['a.bin', 7], ['z.bin', 5]]);
    expect(encodeManifest(m1).equals(encodeManifest(m2))).toBe(true);
    expect(decodeManifest(encodeManifest(m1))).toEqual(m2);
    expect(sameManifest(m1, manifestOf(B, [['a.bin', 7], ['z.bin', 5]]))).toBe(false);
    expect(sameManifest(m1, manifestOf(A, [['a.bin', 8], ['z.bin', 5]]))).toBe(false);
    expect(() => decodeManifest(Buffer.from('{"format":"other"}'))).toThrow(/not a recur.workspace-manifest/);
  });

  test('over-cap files that appear, change size or go away are changes, without hashes; unchanged ones are not', () => {
    const out = overCapChanges([['same', 10], ['grown', 10], ['gone', 3]], [['same', 10], ['grown', 11], ['new', 99]]);
    expect(out.map((f) => [f.path, f.change, f.size, f.overCap, f.oldHash, f.newHash])).toEqual([
      ['grown', 'modified', 11, true, null, null],
      ['new', 'added', 99, true, null, null],
      ['gone', 'deleted', null, true, null, null],
    ]);
  });

  test("git's raw + numstat listing gives add, modify, delete with hashes, sizes, line counts, and binary for `-`", () => {
    const listing = [
      `:000000 100644 ${Z} ${A} A`, 'new.txt',
      `:100644 100644 ${B} ${A} M`, 'dir/mod.txt',
      `:100644 000000 ${B} ${Z} D`, 'old.txt',
      `:000000 100644 ${Z} ${B} A`, 'pic.png',
      '3\t0\tnew.txt', '1\t2\tdir/mod.txt', '0\t5\told.txt', '-\t-\tpic.png', '',
    ].join('\0');
    const sizes = new Map([['new.txt', 12], ['dir/mod.txt', 12], ['pic.png', 300], ['old.txt', 99]]);
    const files = parseDiffTree(listing, sizes);
    expect(files.map((f) => [f.path, f.change, f.oldHash, f.newHash, f.size, f.binary, f.linesAdded, f.linesDeleted])).toEqual([
      ['new.txt', 'added', null, A, 12, false, 3, 0],
      ['dir/mod.txt', 'modified', B, A, 12, false, 1, 2],
      ['old.txt', 'deleted', B, null, null, false, 0, 5],
      ['pic.png', 'added', null, B, 300, true, 0, 0],
    ]);
  });

  test('a path with a tab or newline in it survives the NUL-separated listing', () => {
    const path = 'we\tird\nname.txt';
    const files = parseDiffTree([`:000000 100644 ${Z} ${A} A`, path, `1\t0\t${path}`, ''].join('\0'), new Map());
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ path, linesAdded: 1 });
  });

  test('a file crossing the cap is one modification, keeping the hash from the side under the cap', () => {
    const tree = parseDiffTree([`:100644 000000 ${A} ${Z} D`, 'up', `:000000 100644 ${Z} ${B} A`, 'down', '2\t0\tdown', ''].join('\0'), new Map([['down', 4]]));
    const merged = mergeChanges(tree, overCapChanges([['down', 9000]], [['up', 8000]]));
    expect(merged.map((f) => [f.path, f.change, f.overCap, f.oldHash, f.newHash, f.size, f.linesAdded])).toEqual([
      ['down', 'modified', false, null, B, 4, 2],
      ['up', 'modified', true, A, null, 8000, 0],
    ]);
  });
});
