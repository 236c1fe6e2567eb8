/**
 * The sessions list: every root tree, live (polled), searchable, filterable by status and
 * sortable by age, cost and duration. ArrowDown/ArrowUp move the selected row from anywhere on
 * the page, Enter opens it.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { formatAge, formatCost, formatDuration, firstLine } from '../state/format';
import { navigate, useSessionList } from '../state/hooks';
import { filterRows, sortRows, statusesOf, toggleSort, type ListRow, type SortKey, type SortOrder } from '../state/list-model';

const open = (row: ListRow): void => navigate({ view: 'session', sessionId: row.sessionId, tab: 'timeline', event: null });

function SortHeader(props: { label: string; sortKey: SortKey; order: SortOrder; onSort(key: SortKey): void }) {
  const active = props.order.key === props.sortKey;
  return (
    <th class="num" aria-sort={active ? (props.order.desc ? 'descending' : 'ascending') : 'none'}>
      <button type="button" class="sort" data-testid={`sort-${props.sortKey}`} onClick={() => props.onSort(props.sortKey)}>
        {props.label}{active ? (props.order.desc ? ' ▼' : ' ▲') : ''}
      </button>
    </th>
  );
}

function Row(props: { row: ListRow; selected: boolean; now: number }) {
  const { row } = props;
  return (
    <tr data-testid="session-row" data-session={row.sessionId} data-status={row.status} aria-selected={props.selected ? 'true' : 'false'} onClick={() => open(row)}>
      <td class="mono"><a href={`#/s/${encodeURIComponent(row.sessionId)}/timeline`}>{row.sessionId}</a></td>
      <td class="task" title={row.task}>{firstLine(row.task)}</td>
      <td class="mono">{row.model}</td>
      <td><span class={`status status-${row.status}`}>{row.status}</span></td>
      <td class="num mono">{formatCost(row.costUsd)}</td>
      <td class="num">{formatDuration(row.durationMs)}</td>
      <td class="num" title={new Date(row.startMs).toISOString()}>{formatAge(row.startMs, props.now)}</td>
    </tr>
  );
}

/** Elements whose Enter does something of its own (a link opens, a button clicks). */
const OWN_ENTER: ReadonlySet<string> = new Set(['A', 'BUTTON']);

/**
 * Moves the selection with the arrow keys wherever the focus is, except in the status select (its
 * own arrows). The listener reads the latest rows and selection through a ref: Preact runs effects
 * after paint, so a listener re-made per render would see the previous state on a quick second key.
 */
function useRowKeys(rows: readonly ListRow[], selected: number, setSelected: (i: number) => void): void {
  const latest = useRef({ rows, selected, setSelected });
  latest.current = { rows, selected, setSelected };
  useEffect(() => {
    const onKey = (ev: KeyboardEvent): void => {
      const { rows, selected, setSelected } = latest.current;
      if ((ev.target as HTMLElement).tagName === 'SELECT' || rows.length === 0) return;
      if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
        ev.preventDefault();
        const step = ev.key === 'ArrowDown' ? 1 : -1;
        const next = Math.max(0, Math.min(rows.length - 1, selected < 0 ? 0 : selected + step));
        // Until the next render, a further key moves on from here.
        latest.current = { ...latest.current, selected: next };
        setSelected(next);
      } else if (ev.key === 'Enter' && selected >= 0 && !OWN_ENTER.has((ev.target as HTMLElement).tagName)) {
        ev.preventDefault();
        open(rows[selected]);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

export function SessionsView() {
  const list = useSessionList();
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState('all');
  const [order, setOrder] = useState<SortOrder>({ key: 'age', desc: false });
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const table = useRef<HTMLTableElement>(null);
  const all = list.rows ?? [];
  const rows = useMemo(() => sortRows(filterRows(all, query, status), order), [all, query, status, order]);
  const selected = rows.findIndex((r) => r.sessionId === selectedId);
  useRowKeys(rows, selected, (i) => setSelectedId(rows[i].sessionId));
  // A layout effect, in the same task as the render that marks the row selected: with an effect after
  // paint, an Enter pressed between the two went to the link focused before and opened the wrong row.
  useLayoutEffect(() => {
    const tr = table.current?.querySelector('tr[aria-selected="true"]');
    tr?.scrollIntoView({ block: 'nearest' });
    // Focus in the table follows the selection, so Enter on the focused link opens the selected row.
    if (table.current?.contains(document.activeElement)) tr?.querySelector('a')?.focus();
  }, [selectedId]);
  const now = Date.now();
  return (
    <section class="sessions">
      <div class="toolbar">
        <input type="search" data-testid="session-search" placeholder="Search id, task, model, status" value={query} autoFocus
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)} />
        <select data-testid="status-filter" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
          <option value="all">all statuses</option>
          {[...new Set([...statusesOf(all), ...(status === 'all' ? [] : [status])])].map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
        <span class="meta">{list.rows ? `${rows.length} of ${all.length} sessions` : 'loading…'}{list.complete ? '' : ' · reading the log, totals may lag'}</span>
        {list.error ? <span class="error">{list.error}</span> : null}
      </div>
      <table class="grid" data-testid="session-list" ref={table}>
        <thead>
          <tr>
            <th>Session</th><th>Task</th><th>Model</th><th>Status</th>
            <SortHeader label="Cost" sortKey="cost" order={order} onSort={(k) => setOrder(toggleSort(order, k))} />
            <SortHeader label="Duration" sortKey="duration" order={order} onSort={(k) => setOrder(toggleSort(order, k))} />
            <SortHeader label="Age" sortKey="age" order={order} onSort={(k) => setOrder(toggleSort(order, k))} />
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => <Row key={row.sessionId} row={row} selected={i === selected} now={now} />)}
        </tbody>
      </table>
      {list.rows && rows.length === 0 ? <p class="notice">{all.length === 0 ? 'No sessions yet: start one with recur run.' : 'No session matches.'}</p> : null}
    </section>
  );
}
