import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openBlobStore } from '../../../activities/open-blob-store';
import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import { isInSessionTree } from '../../../schemas';
import { kafkaClient } from '../../../config/connections';
import { stackPaths } from '../../../config/home-paths';
import { logKeyPaths } from '../../home/log-keys';
import type { LogRecord } from '../../projector';
import { writeBundle } from '../../projector/bundle/bundle-format';
import { collectBundle } from '../../projector/bundle/collect-bundle';
import { scanTopic } from '../../projector/scan-topic';
import type { CommandContext } from '../command-context';

const USAGE = 'usage: recur export <session-id> --out FILE [--json]';

/**
 * `recur export <id> --out FILE`: the tree's audit bundle (docs/audit-bundles.md), from Kafka,
 * this home's blob store and its public keys; no daemon or Temporal. Exit 1 when a blob or key
 * it needs is not here: the bundle is still written, and verifying it names what is missing.
 */
export async function exportBundle(ctx: CommandContext): Promise<number> {
  const [treeId, ...extra] = ctx.args;
  const out = ctx.flags.out;
  if (!treeId || extra.length > 0 || typeof out !== 'string' || out === '') throw new ExitError(2, USAGE);
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
  await writeBundle(out, bundle);
  const m = bundle.manifest;
  if (ctx.flags.json) ctx.out(JSON.stringify({ file: out, treeId, records: m.records, blobs: m.blobs.length, keys: m.keys, missingBlobs: m.missingBlobs, missingKeys: bundle.missingKeys }));
  else ctx.out(`wrote ${out}: ${m.records} records, ${m.blobs.length} blobs, ${m.keys.length} public key(s) (${m.keys.join(', ') || 'none'})`);
  for (const b of m.missingBlobs) ctx.err(`missing blob ${b.sha256} (${b.field} of ${b.eventId}): not in ${paths.blobs}`);
  for (const k of bundle.missingKeys) ctx.err(`missing public key ${k}: not in ${publicDir}`);
  if (m.missingBlobs.length + bundle.missingKeys.length > 0) throw new ExitError(1, `${out} is incomplete: ${m.missingBlobs.length} blob(s) and ${bundle.missingKeys.length} key(s) missing`);
  return 0;
}
