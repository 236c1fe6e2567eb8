#!/usr/bin/env node
// Bundles the workflow code of a release (a git ref) the way a worker of that release runs it,
// and writes it as the previous release's bundle the upgrade test starts sessions on
// (tests/integration/upgrade-worker.test.ts; docs/workflows.md says when to run this).
//
//   node scripts/bundle-release-workflows.mjs <git-ref>
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ref = process.argv[2];
if (!ref) {
  console.error('usage: node scripts/bundle-release-workflows.mjs <git-ref>');
  process.exit(2);
}
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
const tree = mkdtempSync(join(tmpdir(), 'recur-release-'));
try {
  // The release's sources; its dependencies are this checkout's (the lockfile pins both alike).
  execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${tree}"`], { cwd: root, stdio: 'inherit' });
  symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'));
  const { bundleWorkflowCode } = createRequire(join(root, 'package.json'))('@temporalio/worker');
  const quiet = { info() {}, warn: console.warn, error: console.error, debug() {}, trace() {}, log() {} };
  // Module ids relative to the release's tree, and a source map without the sources: the bundle
  // is committed, and a worker takes a bundle only with an inline map.
  const { code } = await bundleWorkflowCode({ workflowsPath: join(tree, 'workflows', 'index.ts'), webpackConfigHook: (c) => ({ ...c, devtool: 'inline-nosources-cheap-source-map', context: tree, resolve: { ...c.resolve, symlinks: false }, output: { ...c.output, devtoolModuleFilenameTemplate: 'release:///[resource-path]' } }), logger: quiet });
  const out = join(root, 'tests', 'fixtures', 'workflow-bundles');
  writeFileSync(join(out, 'previous-release.js.gz'), gzipSync(withoutTreePath(code, tree), { level: 9 }));
  writeFileSync(join(out, 'previous-release.json'), `${JSON.stringify({ ref, commit, subject: git('log', '-1', '--format=%s', commit).slice(0, 120) }, null, 2)}\n`);
  console.log(`bundled the workflows of ${ref} (${commit.slice(0, 12)}): ${code.length} bytes`);
} finally {
  rmSync(tree, { recursive: true, force: true });
}

/** The bundle with the temporary tree's path out of its inline source map (webpack names the modules it leaves out by path). */
function withoutTreePath(code, dir) {
  const marker = '//# sourceMappingURL=data:application/json;charset=utf-8;base64,';
  const at = code.lastIndexOf(marker);
  if (at < 0) throw new Error('the bundle has no inline source map');
  const map = Buffer.from(code.slice(at + marker.length).trim(), 'base64').toString('utf8').split(dir).join('.');
  return `${code.slice(0, at)}${marker}${Buffer.from(map, 'utf8').toString('base64')}\n`;
}
