import type { StoredEvent } from '../../../schemas';
import { cell } from './markdown';

/**
 * The summary's cost and diff sections. Each takes the tree's events and returns Markdown
 * lines; they are the only place the summary learns spend or workspace changes, so the tree-wide
 * cost projection and the WorkspaceChanged diff stat plug in here and nowhere else.
 */

/** Tokens and cost per session, summed from its ModelCalled events, indented by depth. */
export function costSection(events: readonly StoredEvent[]): string[] {
  const rows = new Map<string, { turns: number; tokensIn: number; tokensOut: number; usd: number }>();
  for (const e of events) {
    const row = rows.get(e.sessionId) ?? { turns: 0, tokensIn: 0, tokensOut: 0, usd: 0 };
    rows.set(e.sessionId, row);
    if (e.event.type !== 'ModelCalled') continue;
    row.turns++;
    row.tokensIn += e.event.tokensIn;
    row.tokensOut += e.event.tokensOut;
    row.usd += e.event.costUsd;
  }
  const ids = [...rows.keys()].sort();
  const total = [...rows.values()].reduce((t, r) => ({ turns: t.turns + r.turns, tokens: t.tokens + r.tokensIn + r.tokensOut, usd: t.usd + r.usd }), { turns: 0, tokens: 0, usd: 0 });
  const depth0 = Math.min(...ids.map((id) => id.split('/').length));
  return [
    '| session | turns | tokens in | tokens out | cost (USD) |',
    '|---|---:|---:|---:|---:|',
    ...ids.map((id) => {
      const r = rows.get(id)!;
      const indent = '&nbsp;&nbsp;'.repeat(id.split('/').length - depth0);
      return `| ${indent}${cell(id)} | ${r.turns} | ${r.tokensIn} | ${r.tokensOut} | ${r.usd.toFixed(4)} |`;
    }),
    `| **tree** | ${total.turns} | | ${total.tokens} (in + out) | ${total.usd.toFixed(4)} |`,
  ];
}

/** Files the tree changed in its workspace; until WorkspaceChanged is logged, says that no change was recorded. */
export function diffSection(events: readonly StoredEvent[]): string[] {
  const changes = events.filter((e) => (e.type as string) === 'WorkspaceChanged').length;
  return changes === 0 ? ['No workspace changes were logged.'] : [`${changes} workspace change event(s); see \`recur diff\`.`];
}
