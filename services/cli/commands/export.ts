import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { openBlobStore } from '../../../activities/open-blob-store';
import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import { isInSessionTree } from '../../../schemas';
import { kafkaClient } from '../../../config/connections';
import { stackPaths } from '../../../config/home-paths';
import { defaultUiDir } from '../../daemon/static-files';
import { logKeyPaths, readPublicKeyFile } from '../../home/log-keys';
import type { LogRecord } from '../../projector';
import { readBundle, writeBundle, type Bundle } from '../../projector/bundle/bundle-format';
import { bundleHtml } from '../../projector/bundle/bundle-html';
import { bundleKeys } from '../../projector/bundle/bundle-view';
import { collectBundle } from '../../projector/bundle/collect-bundle';
import { scanTopic } from '../../projector/scan-topic';
import type { CommandContext } from '../command-context';

const USAGE = 'usage: recur export <session-id> [--out FILE] [--html FILE] [--pubkey FILE]... [--json] | recur export --bundle FILE --html FILE [--pubkey FILE]... [--json]';

const text = (flag: string | boolean | undefined): string | undefined => (typeof flag === 'string' && flag !== '' ? flag : undefined);

/** The tree's bundle from Kafka, this home's blob store and its public keys, and what it lacks (named on stderr). */
async function collect(ctx: CommandContext, treeId: string): Promise<{ bundle: Bundle; lacks: number }> {
  const config = loadConfig();
  const paths = stackPaths(config);
  const records: LogRecord[] = [];
  const inTree = (r: LogRecord): boolean => r.key !== null && isInSessionTree(r.key.toString('utf8'), treeId);
  await scanTopic({ kafka: kafkaClient(config, 'reader', `${config.kafka.clientId}-export`), topic: config.kafka.topic, onRecord: (r) => inTree(r) && records.push(r) });
  const publicDir = logKeyPaths(paths.keys).public;
  const bundle = await collectBundle({
    treeId, topic: config.kafka.topic, records, blobs: openBlobStore(config), now: new Date(),
    publicKey: (keyId) => (existsSync(join(publicDir, `${keyId}.pem`)) ? readFileSync(join(publicDir, `${keyId}.pem`), 'utf8') : null),
  });
  if (bundle.records.length === 0) throw new ExitError(1, `no events logged for ${treeId} on ${config.kafka.topic}`);
  for (const b of bundle.manifest.missingBlobs) ctx.err(`missing blob ${b.sha256} (${b.field} of ${b.eventId}): not in ${paths.blobs}`);
  for (const k of bundle.missingKeys) ctx.err(`missing public key ${k}: not in ${publicDir}`);
  return { bundle, lacks: bundle.manifest.missingBlobs.length + bundle.missingKeys.length };
}

/**
 * `recur export <id> --out FILE`: the tree's audit bundle (docs/audit-bundles.md), from Kafka,
 * this home's blob store and its public keys; no daemon or Temporal. Exit 1 when a blob or key
 * it needs is not here: the bundle is still written, and verifying it names what is missing.
 * `--html FILE` writes the viewer over the bundle as one page that opens from disk
 * (docs/viewer.md), from the tree or from a bundle already written (`--bundle`, no stack at all).
 */
export async function exportBundle(ctx: CommandContext): Promise<number> {
  const [treeId, ...extra] = ctx.args;
  const [out, html, from] = [text(ctx.flags.out), text(ctx.flags.html), text(ctx.flags.bundle)];
  const ok = extra.length === 0 && (from === undefined ? treeId !== undefined && (out ?? html) !== undefined : treeId === undefined && html !== undefined && out === undefined);
  if (!ok) throw new ExitError(2, USAGE);
  // Key files are read first: a wrong path fails before the topic is scanned.
  const given = ((ctx.flags.pubkey as unknown as string[] | undefined) ?? []).map(readPublicKeyFile);
  const { bundle, lacks } = from === undefined ? await collect(ctx, treeId!) : { bundle: readBundle(from), lacks: 0 };
  const m = bundle.manifest;
  const result: Record<string, unknown> = { treeId: m.treeId, records: m.records, blobs: m.blobs.length, keys: m.keys };
  if (out !== undefined) {
    await writeBundle(out, bundle);
    Object.assign(result, { file: out, missingBlobs: m.missingBlobs, missingKeys: 'missingKeys' in bundle ? bundle.missingKeys : [] });
    if (!ctx.flags.json) ctx.out(`wrote ${out}: ${m.records} records, ${m.blobs.length} blobs, ${m.keys.length} public key(s) (${m.keys.join(', ') || 'none'})`);
  }
  if (html !== undefined) {
    const keys = bundleKeys(from ?? treeId!, bundle, given);
    const page = await bundleHtml({ file: basename(from ?? out ?? `${m.treeId}.tar.gz`), bundle, keys, uiDir: defaultUiDir(), now: new Date() });
    writeFileSync(html, page.html);
    const bytes = statSync(html).size;
    result.html = { file: html, bytes, blobs: page.blobs, blobBytes: page.blobBytes, verified: page.ok, keys: keys.source };
    if (!ctx.flags.json) {
      ctx.out(`wrote ${html}: ${(bytes / 1024).toFixed(1)} KiB, ${page.blobs} blob(s) of ${(page.blobBytes / 1024).toFixed(1)} KiB embedded; ` +
        `${page.ok ? 'verified' : 'FAILED verification'} with ${keys.source === 'given' ? 'the key(s) given with --pubkey' : "the bundle's own key(s) (proves only self-consistency; pass --pubkey)"}`);
    }
  }
  if (ctx.flags.json) ctx.out(JSON.stringify(result));
  if (lacks > 0) throw new ExitError(1, `${out ?? html} is incomplete: ${m.missingBlobs.length} blob(s) and ${lacks - m.missingBlobs.length} key(s) missing`);
  return 0;
}
