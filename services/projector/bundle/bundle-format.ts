import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as tar from 'tar';
import { EventLogError } from '../../../errors';
import type { LogRecord } from '../../../log/event-collector';
import { logCopyLine, parseLogCopy } from '../log-copy';
import type { BlobNeed } from './referenced-blobs';

/** Bumped when a reader of an older bundle would misread a newer one. */
export const BUNDLE_FORMAT = 'recur.audit-bundle/1';
const TOP = 'recur-bundle';

/** What `manifest.json` says. Not signed: a verifier trusts only the events, the blobs' hashes and the keys it is given. */
export interface BundleManifest {
  format: typeof BUNDLE_FORMAT;
  treeId: string;
  topic: string;
  exportedAt: string;
  records: number;
  blobs: Array<{ sha256: string; size: number }>;
  /** Blobs the events name that the exporting home did not have. */
  missingBlobs: BlobNeed[];
  /** Key ids of the public keys in `keys/`. */
  keys: string[];
}

export interface Bundle {
  manifest: BundleManifest;
  /** The tree's Kafka records, exact key and value bytes, in the order the topic held them. */
  records: LogRecord[];
  blobs: ReadonlyMap<string, Buffer>;
  /** Public keys (SPKI PEM) by key id. */
  keys: ReadonlyMap<string, string>;
}

/**
 * Writes `bundle` as one gzipped tar: `recur-bundle/manifest.json`, `log.ndjson` (the records as
 * log-copy.ts writes them: partition, offset, base64 key and value),
 * `keys/<keyId>.pem` and `blobs/<sha256>`. Staged in a private temporary directory, then packed.
 */
export async function writeBundle(file: string, bundle: Bundle): Promise<void> {
  const stage = mkdtempSync(join(tmpdir(), 'recur-bundle-'));
  try {
    const at = (path: string, bytes: string | Buffer): void => {
      const full = join(stage, TOP, path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, bytes);
    };
    at('manifest.json', `${JSON.stringify(bundle.manifest, null, 2)}\n`);
    at('log.ndjson', bundle.records.map((r) => logCopyLine(bundle.manifest.treeId, r)).filter((l) => l !== null).join('\n') + '\n');
    for (const [keyId, pem] of bundle.keys) at(`keys/${keyId}.pem`, pem);
    for (const [sha256, bytes] of bundle.blobs) at(`blobs/${sha256}`, bytes);
    mkdirSync(dirname(file), { recursive: true });
    await tar.c({ gzip: true, file, cwd: stage, portable: true }, [TOP]);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

const ENTRY = new RegExp(`^${TOP}/(manifest\\.json|log\\.ndjson|keys/([0-9a-f]{32})\\.pem|blobs/([0-9a-f]{64}))$`);

/** Reads a bundle whole into memory; names the file and what is wrong when it is not one. Touches nothing else on disk. */
export function readBundle(file: string): Bundle {
  const files = new Map<string, Buffer>();
  const bad = (why: string) => new EventLogError(`${file} is not a Recur audit bundle: ${why}`, { hint: 'a bundle is what `recur export <id> --out FILE` writes' });
  try {
    tar.t({
      file, sync: true,
      onReadEntry: (entry) => {
        const chunks: Buffer[] = [];
        entry.on('data', (c: Buffer) => chunks.push(c));
        entry.on('end', () => files.set(entry.path, Buffer.concat(chunks)));
      },
    });
  } catch (e) {
    throw bad((e as Error).message);
  }
  const unknown = [...files.keys()].filter((p) => !ENTRY.test(p) && !p.endsWith('/'));
  if (unknown.length > 0) throw bad(`unexpected entry ${JSON.stringify(unknown[0])}`);
  const text = (name: string): string => {
    const bytes = files.get(`${TOP}/${name}`);
    if (bytes === undefined) throw bad(`no ${name}`);
    return bytes.toString('utf8');
  };
  let manifest: BundleManifest;
  try {
    manifest = JSON.parse(text('manifest.json')) as BundleManifest;
  } catch (e) {
    if (e instanceof EventLogError) throw e;
    throw bad(`manifest.json is not JSON: ${(e as Error).message}`);
  }
  if (manifest.format !== BUNDLE_FORMAT || typeof manifest.treeId !== 'string') throw bad(`manifest.json is not format ${BUNDLE_FORMAT}`);
  const blobs = new Map<string, Buffer>();
  const keys = new Map<string, string>();
  for (const [path, bytes] of files) {
    const m = ENTRY.exec(path);
    if (m?.[2]) keys.set(m[2], bytes.toString('utf8'));
    if (m?.[3]) blobs.set(m[3], bytes);
  }
  return { manifest, records: parseLogCopy(text('log.ndjson'), `${file}: log.ndjson`), blobs, keys };
}
