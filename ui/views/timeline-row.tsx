import type { Row } from '../model/rows';
import { relativeTime, shortName } from '../model/rows';
import { eventFacts } from '../../services/cli/format-event';

export const ROW_HEIGHT = 24;

interface Props {
  row: Row;
  t0: number;
  top: number;
  selected: boolean;
  fault: string | undefined;
  onPick(eventId: string): void;
}

/** One event on one line: its time, session (indented by depth), type and key facts. */
export function TimelineRow({ row, t0, top, selected, fault, onPick }: Props) {
  const e = row.event;
  return (
    <div
      class={`tl-row${selected ? ' selected' : ''}${fault ? ' fault' : ''}`}
      role="option"
      data-testid="timeline-row"
      data-event={e.eventId}
      data-type={e.type}
      data-fault={fault}
      aria-selected={selected ? 'true' : 'false'}
      style={{ transform: `translateY(${top}px)` }}
      onClick={() => onPick(e.eventId)}
    >
      <span class="tl-time">{relativeTime(e.ts - t0)}</span>
      <span class="tl-session" title={e.sessionId} style={{ paddingLeft: `${row.depth}em` }}>{shortName(e.sessionId)}</span>
      <span class="tl-seq">#{e.seq}</span>
      <span class={`tl-type type-${e.type}`}>{e.type}</span>
      <span class="tl-facts">{fault ? `${fault}: ` : ''}{eventFacts(e.event)}</span>
    </div>
  );
}
