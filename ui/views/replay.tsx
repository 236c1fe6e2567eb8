import { useMemo } from 'preact/hooks';
import { eventFacts } from '../../services/cli/format-event';
import { budgetAt } from '../model/budget';
import { harnessAt } from '../model/harness-state';
import { replayIndex } from '../model/replay';
import { rowIndex, timelineRows } from '../model/rows';
import type { SessionViewProps } from '../state/types';
import { EventDetail } from './event-detail';
import { ReplayStatePanel } from './replay-state';
import './views.css';

/**
 * A scrubber over the whole tree's timeline (harness edits included, as in the timeline's tree
 * scope): the tree's state is a tree-wide thing, so the scrubber does not narrow to one session.
 * Its position is the shared selection; with none, the latest event.
 */
export function ReplayView(props: SessionViewProps) {
  const { tree } = props;
  const rows = useMemo(() => timelineRows(tree.events, tree.harness, 'tree', tree.focus), [tree.version, tree.focus]);
  const index = useMemo(() => rowIndex(rows), [rows]);
  const replay = useMemo(() => replayIndex(rows), [rows]);
  // For each row, how many of the tree's own events (harness edits aside) are at or before it.
  const treeCount = useMemo(() => {
    const counts = new Int32Array(rows.length);
    let n = 0;
    rows.forEach((r, i) => {
      if (!r.event.sessionId.startsWith('harness:')) n++;
      counts[i] = n;
    });
    return counts;
  }, [rows]);

  const selected = props.selected === null ? undefined : index.get(props.selected);
  const pos = selected ?? rows.length - 1;
  const state = useMemo(() => replay.stateAfter(pos), [replay, pos]);
  const budget = useMemo(() => (pos < 0 ? [] : budgetAt(tree.rootId, tree.events, treeCount[pos] - 1)), [tree.version, treeCount, pos]);
  const at = pos < 0 ? undefined : rows[pos].event;
  const harness = useMemo(() => (at ? harnessAt(tree.harness, at.ts) : []), [tree.version, at]);

  if (!at) return <div class="view replay-view"><p class="dim">No events yet.</p></div>;
  return (
    <div class="view replay-view">
      <div class="view-toolbar">
        <input
          type="range"
          class="scrubber"
          data-testid="scrubber"
          aria-label="event"
          min={0}
          max={rows.length - 1}
          step={1}
          value={pos}
          onInput={(ev) => props.select(rows[Number((ev.currentTarget as HTMLInputElement).value)].event.eventId)}
        />
      </div>
      <p class="scrubber-position" data-testid="scrubber-position">
        {pos + 1} / {rows.length} · <code>{at.eventId}</code> {at.type} · {new Date(at.ts).toISOString()} · {eventFacts(at.event)}
      </p>
      <ReplayStatePanel state={state} harness={harness} budget={budget} />
      <EventDetail {...props} event={at} />
    </div>
  );
}
