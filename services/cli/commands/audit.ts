import { readFileSync } from 'node:fs';
import { loadConfig, type RecurConfig } from '../../../config';
import { ExitError } from '../../../errors';
import { keyringOf, type Keyring } from '../../../schemas';
import { inOrderCollector, readLogInOrder, type LogInOrder } from '../../projector/read-log-in-order';
import { logCopyLine, parseLogCopy } from '../../projector/log-copy';
import { scanTopic } from '../../projector/scan-topic';
import { verifyTree, type AuditProblem, type TreeVerdict } from '../../projector/verify-tree';
import { homeKeyring, kafkaClient, readPublicKeyFile, stackPaths } from '../../devstack';
import type { CommandContext } from '../cli';

const USAGE = 'usage: recur audit verify <session-id> [--pubkey FILE]... [--log FILE] [--json] | recur audit export <session-id>';

/** Where a problem is, for people: the event, or the session and offset of an undecodable record. */
export function problemSite(p: AuditProblem): string {
  return p.eventId ?? p.sessionId ?? '?';
}

export function formatVerdict(v: TreeVerdict): string[] {
  const copies = [
    v.duplicates > 0 ? `${v.duplicates} retried cop${v.duplicates === 1 ? 'y' : 'ies'} dropped` : '',
    v.resealed > 0 ? `${v.resealed} cop${v.resealed === 1 ? 'y' : 'ies'} re-signed by a rotated key` : '',
  ].filter(Boolean);
  const counts = `${v.sessions.length} session${v.sessions.length === 1 ? '' : 's'}, ${v.events} events` + (copies.length > 0 ? ` (${copies.join(', ')})` : '');
  const width = Math.max(0, ...v.sessions.map((s) => s.sessionId.length));
  const heads = v.sessions.map((s) =>
    `  ${s.sessionId.padEnd(width)}  ${String(s.events).padStart(5)} events  head #${s.nextSeq - 1} ${s.headHash.slice(0, 16)}  ${s.ended ?? 'not ended'}`);
  const keys = Object.entries(v.signedBy).map(([id, n]) => `  signed by key ${id}: ${n} event${n === 1 ? '' : 's'}`);
  if (v.ok) return [`verified ${v.sessionId}: ${counts}; every chain intact, every event signed by a known key, tree consistent`, ...heads, ...keys];
  return [
    `FAILED ${v.sessionId}: ${v.faults.length} fault${v.faults.length === 1 ? '' : 's'} in ${counts}`,
    ...v.faults.map((p) => `  ${problemSite(p)}  ${p.fault}: ${p.detail}`),
    ...heads,
    ...keys,
  ];
}

/** The public keys to verify with: the files given, and only them; otherwise every key the home ever signed with. */
function keysFor(config: RecurConfig, files: readonly string[]): Keyring {
  return files.length > 0 ? keyringOf(files.map(readPublicKeyFile)) : homeKeyring(stackPaths(config).keys);
}

/** The tree from a copy made by `recur audit export`, or from Kafka. */
async function readTree(config: RecurConfig, sessionId: string, copy: string | undefined): Promise<LogInOrder> {
  if (copy === undefined) {
    return readLogInOrder({ kafka: kafkaClient(config, 'reader', `${config.kafka.clientId}-audit`), topic: config.kafka.topic, sessionId });
  }
  let text: string;
  try {
    text = readFileSync(copy, 'utf8');
  } catch (e) {
    throw new ExitError(2, `cannot read log copy ${copy}: ${(e as Error).message}`);
  }
  const collector = inOrderCollector(sessionId);
  for (const r of parseLogCopy(text, copy)) collector.accept(r);
  return collector.result();
}

/**
 * `recur audit verify <id>`: checks the session tree from Kafka (or a copy of it) and public keys
 * alone (no daemon, no Temporal, no private key). Exit 0 when every chain, every seal and the
 * tree's shape are intact, 3 naming the first bad event otherwise.
 * `recur audit export <id>`: prints the tree's records, for an auditor to verify elsewhere.
 */
export async function audit(ctx: CommandContext): Promise<number> {
  const [sub, sessionId, ...extra] = ctx.args;
  if ((sub !== 'verify' && sub !== 'export') || !sessionId || extra.length > 0) throw new ExitError(2, USAGE);
  const config = loadConfig();
  if (sub === 'export') {
    const kafka = kafkaClient(config, 'reader', `${config.kafka.clientId}-audit`);
    await scanTopic({ kafka, topic: config.kafka.topic, onRecord: (r) => {
      const line = logCopyLine(sessionId, r);
      if (line !== null) ctx.out(line);
    } });
    return 0;
  }
  const keys = keysFor(config, (ctx.flags.pubkey as unknown as string[] | undefined) ?? []);
  const copy = typeof ctx.flags.log === 'string' ? ctx.flags.log : undefined;
  const verdict = verifyTree(sessionId, await readTree(config, sessionId, copy), keys);
  const first = verdict.faults[0];
  if (ctx.flags.json) ctx.out(JSON.stringify({ ...verdict, first: first ?? null }));
  else for (const line of formatVerdict(verdict)) ctx.out(line);
  if (first) throw new ExitError(3, `audit of ${sessionId} failed at ${problemSite(first)}: ${first.fault}: ${first.detail}`);
  return 0;
}
