import type { SessionViewProps } from '../state/types';

/** Placeholder until the view lands. */
export function TimelineView(props: SessionViewProps) {
  return <div data-testid="timeline-placeholder">{props.tree.events.length} events</div>;
}
