#!/usr/bin/env node
/**
 * Bundles the audit viewer (ui/) into dist/ui: app.js and app.css with linked source maps, and
 * index.html. Platform browser, so a Node import anywhere in the viewer's graph fails the build:
 * that is the guard keeping daemon code out of the page.
 */
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'ui');

try {
  mkdirSync(out, { recursive: true });
  await build({
    absWorkingDir: root,
    entryPoints: ['ui/main.tsx'],
    entryNames: 'app',
    outdir: out,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'chrome110',
    minify: true,
    sourcemap: 'linked',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    loader: { '.css': 'css' },
    logLevel: 'silent',
  });
  copyFileSync(join(root, 'ui', 'index.html'), join(out, 'index.html'));
} catch (err) {
  const messages = err.errors?.length
    ? err.errors.map((e) => `${e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ` : ''}${e.text}`)
    : [err.message];
  console.error(`build-ui: the viewer bundle failed:\n  ${messages.join('\n  ')}`);
  process.exit(1);
}

const kib = (file) => (statSync(join(out, file)).size / 1024).toFixed(1);
console.log(`build-ui: dist/ui/app.js ${kib('app.js')} KiB, app.css ${kib('app.css')} KiB`);
