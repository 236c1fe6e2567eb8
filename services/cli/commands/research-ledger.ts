import { loadConfig } from '../../../config';
import { kafkaClient } from '../../../config/connections';
import { ExitError } from '../../../errors';
import type { StoredEvent } from '../../../schemas';
import { readLogInOrder } from '../../projector/read-log-in-order';
import { researchLedger, type LedgerRow, type ResearchLedger } from '../../projector/research-ledger';
import type { CommandContext } from '../command-context';

const mean = (m: number | null) => (m === null ? '-' : m.toFixed(5));

function verdictText(r: LedgerRow): string {
  if (!r.verdict) return r.promising ? 'promising' : '';
  return r.verdict.accepted ? `RECORD over ${r.verdict.previousId}` : `rejected: ${r.verdict.reason}`;
}

/** The ledger as a table: one line per experiment, its notes under it, the record over time above it. */
export function formatLedger(l: ResearchLedger): string[] {
  const record = l.records.at(-1);
  const lines = [`ledger of ${l.sessionId}: ${l.task} (${l.knowledge}), ${l.rows.length} experiment${l.rows.length === 1 ? '' : 's'}`];
  if (record) lines.push(`record: ${record.id} ${record.steps} steps mean ${mean(record.mean)}${l.records.length > 1 ? ` (from ${l.records.map((r) => `${r.id} ${r.steps}`).join(' → ')})` : ''}`);
  // A sub-agent is named by its path under the root; the root itself by "root".
  const who = (by: string | null) => (by === null || by === l.sessionId ? 'root' : by.slice(l.sessionId.length + 1));
  const table = [['id', 'kind', 'status', 'steps', 'mean', 'n', 'parent', 'by', 'idea', 'verdict']];
  for (const r of l.rows) {
    table.push([r.id, r.kind, r.status, String(r.steps ?? '-'), mean(r.mean), String(r.trials.length), r.parent ?? '-', who(r.by), r.idea.split('\n')[0].slice(0, 40), verdictText(r) || r.reason.slice(0, 60)]);
  }
  const widths = table[0].map((_, c) => Math.max(...table.map((row) => row[c].length)));
  for (const [i, row] of table.entries()) {
    lines.push(row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]))).join('  ').trimEnd());
    for (const n of i > 0 ? l.rows[i - 1].notes : []) lines.push(`  note (${who(n.by)}): ${n.note.split('\n')[0]}`);
  }
  return lines;
}

/** Every event of the tree under `sessionId` (its sub-agents' too); exits 1 when the session was never logged. */
export async function readResearchTree(sessionId: string): Promise<StoredEvent[]> {
  const config = loadConfig();
  const kafka = kafkaClient(config, 'reader', `${config.kafka.clientId}-research`);
  const log = await readLogInOrder({ kafka, topic: config.kafka.topic, sessionId });
  if (!log.sessions.get(sessionId)?.length) throw new ExitError(1, `no session ${sessionId} logged on ${config.kafka.topic}`);
  return [...log.sessions.values()].flat();
}

/** `recur research ledger <session-id>`: the session's research ledger, from its event log alone. */
export async function ledger(ctx: CommandContext, sessionId: string): Promise<number> {
  const l = researchLedger(sessionId, await readResearchTree(sessionId));
  if (l.task === null) throw new ExitError(1, `${sessionId} is no research session (it was not started with --research)`);
  if (ctx.flags.json) ctx.out(JSON.stringify(l));
  else for (const line of formatLedger(l)) ctx.out(line);
  return 0;
}
