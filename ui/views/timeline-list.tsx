import { useEffect, useRef } from 'preact/hooks';
import type { Row } from '../model/rows';
import { ROW_HEIGHT, TimelineRow } from './timeline-row';
import { useVirtualRows } from './use-virtual';

interface Props {
  rows: readonly Row[];
  /** Rows in all: past `rows.length` are those still loading, shown as placeholders. */
  count: number;
  t0: number;
  selectedIndex: number;
  faults: ReadonlyMap<string, string>;
  pick(index: number): void;
  /** Enter or Space on the list: show the selected event's detail. */
  open(): void;
}

/** The scrolling list: only the rows near the viewport are in the DOM. */
export function TimelineList({ rows, count, t0, selectedIndex, faults, pick, open }: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualRows(count, ROW_HEIGHT, scrollRef);
  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [selectedIndex, virtualizer]);
  // A live tree grows at the end: a reader who was looking at the end keeps seeing it.
  const shown = useRef(count);
  useEffect(() => {
    const el = scrollRef.current;
    const before = shown.current;
    shown.current = count;
    if (el && count > before && el.scrollTop + el.clientHeight >= before * ROW_HEIGHT - ROW_HEIGHT / 2) {
      virtualizer.scrollToIndex(count - 1, { align: 'end' });
    }
  }, [count, virtualizer]);

  const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? ROW_HEIGHT * 10) / ROW_HEIGHT) - 1);
  const onKeyDown = (ev: KeyboardEvent) => {
    const last = rows.length - 1;
    const step: Record<string, number> = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: page, PageUp: -page };
    if (ev.key in step) pick(Math.min(last, Math.max(0, (selectedIndex < 0 && step[ev.key] > 0 ? -1 : selectedIndex) + step[ev.key])));
    else if (ev.key === 'Home') pick(0);
    else if (ev.key === 'End') pick(last);
    else if (ev.key === 'Enter' || ev.key === ' ') open();
    else return;
    ev.preventDefault();
  };

  return (
    <div class="tl-list" data-testid="timeline" data-count={count} data-loaded={rows.length} tabIndex={0} role="listbox" aria-label="events" ref={scrollRef} onKeyDown={onKeyDown}>
      <div class="tl-space" style={{ height: `${virtualizer.getTotalSize()}px` }}>
        {virtualizer.getVirtualItems().map((item) => {
          if (item.index >= rows.length) return <div key={`pending-${item.index}`} class="tl-row pending" aria-hidden="true" style={{ transform: `translateY(${item.start}px)` }}>loading…</div>;
          const row = rows[item.index];
          const id = row.event.eventId;
          return <TimelineRow key={id} row={row} t0={t0} top={item.start} selected={item.index === selectedIndex} fault={faults.get(id)} onPick={() => pick(item.index)} />;
        })}
      </div>
    </div>
  );
}
