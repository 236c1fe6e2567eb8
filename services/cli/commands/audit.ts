import { loadConfig, type RecurConfig } from '../../../config';
import { ExitError } from '../../../errors';
import { keyringOf, type Keyring } from '../../../schemas';
import { readBundle } from '../../projector/bundle/bundle-format';
import { verifyBundle, type BundleVerdict, type KeySource } from '../../projector/bundle/verify-bundle';
import { auditTopicTree } from '../../projector/audit-topic';
import type { AuditProblem, TreeVerdict } from '../../../log/verify-tree';
import { kafkaClient } from '../../../config/connections';
import { stackPaths } from '../../../config/home-paths';
import { homeKeyring, publicKeyFromPem, readPublicKeyFile } from '../../home/log-keys';
import type { CommandContext } from '../command-context';

const USAGE = 'usage: recur audit verify <session-id> [--pubkey FILE]... [--json] | recur audit verify --bundle FILE [<session-id>] [--pubkey FILE]... [--json]';

/** Where a problem is, for people: the event, or the session and offset of an undecodable record. */
export function problemSite(p: AuditProblem): string {
  return p.eventId ?? p.sessionId ?? '?';
}

const KEYS_SAID: Record<KeySource['source'], string> = {
  given: 'the public key(s) given with --pubkey',
  bundle: "the bundle's own public key(s): this proves only that the bundle is self-consistent; pass --pubkey with a key you trust",
};

export function formatVerdict(v: TreeVerdict | BundleVerdict): string[] {
  const copies = [
    v.duplicates > 0 ? `${v.duplicates} retried cop${v.duplicates === 1 ? 'y' : 'ies'} dropped` : '',
    v.resealed > 0 ? `${v.resealed} cop${v.resealed === 1 ? 'y' : 'ies'} re-signed by a rotated key` : '',
  ].filter(Boolean);
  const counts = `${v.sessions.length} session${v.sessions.length === 1 ? '' : 's'}, ${v.events} events` + (copies.length > 0 ? ` (${copies.join(', ')})` : '');
  const width = Math.max(0, ...v.sessions.map((s) => s.sessionId.length));
  const heads = v.sessions.map((s) =>
    `  ${s.sessionId.padEnd(width)}  ${String(s.events).padStart(5)} events  head #${s.nextSeq - 1} ${s.headHash.slice(0, 16)}  ${s.ended ?? 'not ended'}`);
  const keys = Object.entries(v.signedBy).map(([id, n]) => `  signed by key ${id}: ${n} event${n === 1 ? '' : 's'}`);
  const bundle = 'keys' in v
    ? [`  blobs: ${v.blobs.present} of ${v.blobs.needed} the events name are in the bundle${v.blobs.unreferenced ? ` (${v.blobs.unreferenced} more that none names)` : ''}`,
      `  verified with ${KEYS_SAID[v.keys.source]} (${v.keys.keyIds.join(', ') || 'none'})`]
    : [];
  const blobs = 'keys' in v ? ', every blob present and intact' : '';
  if (v.ok) return [`verified ${v.sessionId}: ${counts}; every chain intact, every event signed by a known key, tree consistent${blobs}`, ...heads, ...keys, ...bundle];
  return [
    `FAILED ${v.sessionId}: ${v.faults.length} fault${v.faults.length === 1 ? '' : 's'} in ${counts}`,
    ...v.faults.map((p) => `  ${problemSite(p)}  ${p.fault}: ${p.detail}`),
    ...heads,
    ...keys,
    ...bundle,
  ];
}

/** The public keys to verify with: the files given, and only them; otherwise every key the home ever signed with. */
function keysFor(config: RecurConfig, files: readonly string[]): Keyring {
  return files.length > 0 ? keyringOf(files.map(readPublicKeyFile)) : homeKeyring(stackPaths(config).keys);
}

/** A bundle's verdict: with the operator's keys when given, else with the bundle's own (and the output says which). Needs no home. */
async function verifyBundleFile(file: string, treeId: string | undefined, pubkeys: readonly string[]): Promise<BundleVerdict> {
  const bundle = readBundle(file);
  const given = pubkeys.length > 0;
  const keyring = given ? keyringOf(pubkeys.map(readPublicKeyFile)) : keyringOf([...bundle.keys].map(([keyId, pem]) => publicKeyFromPem(pem, `${file}: keys/${keyId}.pem`)));
  return verifyBundle(bundle, keyring, { source: given ? 'given' : 'bundle', keyIds: [...keyring.keys()] }, treeId);
}

/**
 * `recur audit verify <id>`: checks the session tree in Kafka with public keys alone (no daemon,
 * no Temporal, no private key); `--bundle FILE` checks an audit bundle instead, with no stack
 * and no home at all, its blobs included. Exit 0 when every chain, every seal, the tree's shape
 * (and every blob) are intact, 3 naming the first bad event otherwise.
 */
export async function audit(ctx: CommandContext): Promise<number> {
  const [sub, ...rest] = ctx.args;
  const bundleFile = typeof ctx.flags.bundle === 'string' ? ctx.flags.bundle : undefined;
  const [sessionId, ...extra] = rest;
  if (sub !== 'verify' || extra.length > 0 || (!sessionId && bundleFile === undefined)) throw new ExitError(2, USAGE);
  const pubkeys = (ctx.flags.pubkey as unknown as string[] | undefined) ?? [];
  let verdict: TreeVerdict | BundleVerdict;
  if (bundleFile !== undefined) {
    verdict = await verifyBundleFile(bundleFile, sessionId, pubkeys);
  } else {
    const config = loadConfig();
    const kafka = kafkaClient(config, 'reader', `${config.kafka.clientId}-audit`);
    verdict = await auditTopicTree({ kafka, topic: config.kafka.topic, sessionId, keys: keysFor(config, pubkeys) });
  }
  const first = verdict.faults[0];
  if (ctx.flags.json) ctx.out(JSON.stringify({ ...verdict, first: first ?? null }));
  else for (const line of formatVerdict(verdict)) ctx.out(line);
  if (first) throw new ExitError(3, `audit of ${verdict.sessionId} failed at ${problemSite(first)}: ${first.fault}: ${first.detail}`);
  return 0;
}
