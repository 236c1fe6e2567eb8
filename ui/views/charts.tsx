import type { SessionViewProps } from '../state/types';

/** Placeholder until the view lands. */
export function ChartsView(props: SessionViewProps) {
  return <div data-testid="charts-placeholder">{props.tree.events.length} events</div>;
}
