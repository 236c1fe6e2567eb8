import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../../activities/blob-store';
import { RecurError } from '../../../errors';
import { sessionRoot } from '../../../schemas';
import { EMBEDDED_BUNDLE_ID, type EmbeddedBundle, type TreeLine } from '../../daemon/api-types';
import { treeLines } from '../../daemon/tree-lines';
import type { Bundle } from './bundle-format';
import { bundleCatalog, bundleTree, bundleViewInfo, verifyWith, type BundleKeys } from './bundle-view';
import { blobRefsIn } from './referenced-blobs';

export interface BundleHtml {
  html: string;
  /** Blobs embedded and their bytes (before base64). */
  blobs: number;
  blobBytes: number;
  ok: boolean;
}

const cspHash = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The viewer's built script or style, refused if it could end its own element early. */
function asset(uiDir: string, name: string, closer: string): string {
  let text: string;
  try {
    text = readFileSync(join(uiDir, name), 'utf8');
  } catch {
    throw new RecurError('the viewer is not built', { hint: 'run npm run build in the Recur checkout' });
  }
  text = text.replace(/\n\/[/*]# sourceMappingURL=\S+\s*$/, '\n');
  if (text.toLowerCase().includes(closer)) throw new RecurError(`dist/ui/${name} holds "${closer}": it cannot be inlined in a page`);
  return text;
}

/**
 * One HTML file that opens the viewer on `bundle` from disk, with no server and no network: the
 * built script and style inlined, every answer the viewer would ask for embedded as JSON (the
 * tree, its catalog entry, the verdict computed now with `keys`, the blobs the events name). A
 * CSP in the page allows exactly the inlined script and style (by hash) and no connection at all.
 */
export async function bundleHtml(opts: { file: string; bundle: Bundle; keys: BundleKeys; uiDir: string; now: Date }): Promise<BundleHtml> {
  const { bundle, keys } = opts;
  const rootId = sessionRoot(bundle.manifest.treeId);
  const view = bundleTree(bundle, rootId);
  const blobs: Record<string, string> = {};
  let blobBytes = 0;
  for (const e of view.tree.events) {
    for (const { ref } of blobRefsIn(e.event)) {
      const bytes = bundle.blobs.get(ref.sha256);
      // A blob missing or corrupt stays out: the page says so where it is shown, and the verdict names it.
      if (bytes === undefined || ref.sha256 in blobs || sha256Hex(bytes) !== ref.sha256) continue;
      blobs[ref.sha256] = bytes.toString('base64');
      blobBytes += bytes.length;
    }
  }
  const verdict = await verifyWith(bundle, keys, rootId);
  const data: EmbeddedBundle = {
    info: { temporalUi: null, namespace: 'default', traceUrl: null, bundle: bundleViewInfo(opts.file, bundle, keys, opts.now.toISOString()) },
    catalog: bundleCatalog(bundle),
    rootId,
    tree: [...treeLines(view)].map((line) => JSON.parse(line) as TreeLine),
    verdict,
    blobs,
  };
  const script = asset(opts.uiDir, 'app.js', '</script');
  const style = asset(opts.uiDir, 'app.css', '</style');
  // `<` escaped, the JSON can hold no tag, so nothing in an event ends its element or starts another.
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  const csp = `default-src 'none'; script-src ${cspHash(script)}; style-src ${cspHash(style)}; img-src data:; base-uri 'none'; form-action 'none'`;
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<link rel="icon" href="data:,">',
    `<title>Recur audit bundle ${escapeHtml(bundle.manifest.treeId)}</title>`,
    `<style>${style}</style>`,
    `<script type="application/json" id="${EMBEDDED_BUNDLE_ID}">${json}</script>`,
    `<script type="module">${script}</script>`,
    '</head>',
    '<body><div id="app"></div></body>',
    '</html>',
    '',
  ].join('\n');
  return { html, blobs: Object.keys(blobs).length, blobBytes, ok: verdict.ok };
}
