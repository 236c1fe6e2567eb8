import type { SessionSummary } from '../../services/daemon/api-types';
import type { CatalogEntry } from '../../services/daemon/api-types';
import { formatAge, formatCost, formatDuration, firstLine } from '../../ui/state/format';
import { filterRows, mergeRows, sortRows, statusesOf, toggleSort, type ListRow } from '../../ui/state/list-model';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const iso = (minutesAgo: number): string => new Date(NOW - minutesAgo * 60_000).toISOString();

const summary = (sessionId: string, status: string, startedAgo: number, closedAgo: number | null, phase?: 'idle' | 'unloaded'): SessionSummary => ({
  sessionId, status, startTime: iso(startedAgo), closeTime: closedAgo === null ? null : iso(closedAgo), phase: phase ?? null,
});
const entry = (sessionId: string, over: Partial<CatalogEntry> = {}): CatalogEntry => ({
  sessionId, task: `task of ${sessionId}`, model: 'anthropic/claude', startTs: NOW - 3_600_000, lastTs: NOW - 3_000_000, ended: 'completed',
  costUsd: 0.01, tokensIn: 1, tokensOut: 1, turns: 1, sessions: 1, events: 3, ...over,
});

describe('the sessions list (ui/state/list-model.ts)', () => {
  const rows = mergeRows(
    [summary('r1', 'RUNNING', 10, null), summary('r2', 'Completed', 30, 20), summary('r3', 'RUNNING', 5, null, 'idle'), summary('r1/child', 'RUNNING', 9, null)],
    [entry('r1', { ended: null, costUsd: 0.5, task: 'Fix the flaky\nsecond line' }), entry('r2', { model: 'openai/gpt', costUsd: 0.02 }), entry('r0', { ended: 'failed', costUsd: 0.1 })],
    NOW,
  );
  const byId = (id: string) => rows.find((r) => r.sessionId === id)!;

  test('merges Temporal\'s roots with the catalog by id; sub-agents stay in their trees', () => {
    expect(rows.map((r) => r.sessionId).sort()).toEqual(['r0', 'r1', 'r2', 'r3']);
    expect(byId('r1')).toEqual({ sessionId: 'r1', status: 'running', task: 'Fix the flaky\nsecond line', model: 'anthropic/claude', costUsd: 0.5, startMs: NOW - 600_000, durationMs: 600_000 });
    expect(byId('r2')).toMatchObject({ status: 'completed', model: 'openai/gpt', durationMs: 600_000 });
    // Temporal's phase names what a running root does; the log's end stands in once Temporal forgot the session.
    expect(byId('r3')).toMatchObject({ status: 'idle', task: '', costUsd: 0 });
    expect(byId('r0')).toMatchObject({ status: 'failed', startMs: NOW - 3_600_000, durationMs: 600_000 });
  });

  test('search matches id, task, model and status, case-insensitively; the status filter narrows further', () => {
    const ids = (list: ListRow[]) => list.map((r) => r.sessionId).sort();
    expect(ids(filterRows(rows, 'FLAKY', 'all'))).toEqual(['r1']);
    expect(ids(filterRows(rows, 'gpt', 'all'))).toEqual(['r2']);
    expect(ids(filterRows(rows, ' r3 ', 'all'))).toEqual(['r3']);
    expect(ids(filterRows(rows, 'Run', 'all'))).toEqual(['r1']);
    expect(ids(filterRows(rows, 'anthropic', 'failed'))).toEqual(['r0']);
    expect(ids(filterRows(rows, '', 'all'))).toHaveLength(4);
    expect(statusesOf(rows)).toEqual(['completed', 'failed', 'idle', 'running']);
  });

  test('sorts by age, cost or duration either way, ties by id', () => {
    const order = (key: 'age' | 'cost' | 'duration', desc: boolean) => sortRows(rows, { key, desc }).map((r) => r.sessionId);
    expect(order('age', false)).toEqual(['r3', 'r1', 'r2', 'r0']);
    expect(order('age', true)).toEqual(['r0', 'r2', 'r1', 'r3']);
    expect(order('cost', true)).toEqual(['r1', 'r0', 'r2', 'r3']);
    expect(order('duration', false)).toEqual(['r3', 'r0', 'r1', 'r2']);
    expect(toggleSort({ key: 'age', desc: false }, 'age')).toEqual({ key: 'age', desc: true });
    expect(toggleSort({ key: 'age', desc: true }, 'cost')).toEqual({ key: 'cost', desc: true });
  });

  test('writes cost, durations, ages and task lines the way the table shows them', () => {
    expect(formatCost(0.0123)).toBe('$0.0123');
    expect([850, 12_340, 245_000, 11_220_000, 187_200_000].map(formatDuration)).toEqual(['850ms', '12.3s', '4m 05s', '3h 07m', '2d 04h']);
    expect(formatAge(NOW - 90_000, NOW)).toBe('1m 30s ago');
    expect(firstLine('Fix the flaky\nsecond line')).toBe('Fix the flaky');
    expect(firstLine('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});
