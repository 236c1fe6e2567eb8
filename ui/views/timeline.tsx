import { useMemo, useRef, useState } from 'preact/hooks';
import { eventIndex, faultsByEvent, pendingRows, rowIndex, timelineRows, treeStart, type Scope } from '../model/rows';
import type { SessionViewProps } from '../state/types';
import { EventDetail } from './event-detail';
import { TimelineList } from './timeline-list';
import './views.css';

/** The tree's events in causal order (or the page's session only), with the selected event's detail beside them. */
export function TimelineView(props: SessionViewProps) {
  const { tree } = props;
  const [scope, setScope] = useState<Scope>(tree.focus === tree.rootId ? 'tree' : 'session');
  const pending = useMemo(() => pendingRows(tree, scope, tree.focus), [tree.version, scope, tree.focus]);
  const rows = useMemo(() => timelineRows(tree.events, pending.harness, scope, tree.focus), [pending]);
  const count = rows.length + pending.toCome;
  const index = useMemo(() => rowIndex(rows), [rows]);
  const byId = useMemo(() => eventIndex(tree.events, tree.harness), [tree.version]);
  const t0 = useMemo(() => treeStart(tree.events), [tree.version]);
  const faults = useMemo(() => faultsByEvent(props.verdict), [props.verdict]);
  const detailRef = useRef<HTMLDivElement>(null);

  const selectedIndex = props.selected === null ? -1 : index.get(props.selected) ?? -1;
  const selectedEvent = props.selected === null ? undefined : byId.get(props.selected);
  const pick = (i: number) => {
    if (i >= 0 && i < rows.length) props.select(rows[i].event.eventId);
  };

  return (
    <div class="view timeline-view">
      <div class="view-toolbar">
        <label>
          Show{' '}
          <select data-testid="timeline-scope" value={scope} onChange={(ev) => setScope((ev.currentTarget as HTMLSelectElement).value as Scope)}>
            <option value="session">this session</option>
            <option value="tree">the whole tree</option>
          </select>
        </label>
        <span class="dim" data-testid="timeline-status">
          {count.toLocaleString('en-US')} events{pending.toCome > 0 ? ` · loading (${rows.length.toLocaleString('en-US')} in)` : tree.live ? ' · live' : ''}
        </span>
      </div>
      <div class="tl-split">
        <TimelineList rows={rows} count={count} t0={t0} selectedIndex={selectedIndex} faults={faults} pick={pick} open={() => detailRef.current?.focus()} />
        <div class="tl-detail" ref={detailRef} tabIndex={-1}>
          {selectedEvent ? <EventDetail {...props} event={selectedEvent} /> : <p class="dim">Select an event to see its detail.</p>}
        </div>
      </div>
    </div>
  );
}
