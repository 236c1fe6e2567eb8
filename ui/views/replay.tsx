import type { SessionViewProps } from '../state/types';

/** Placeholder until the view lands. */
export function ReplayView(props: SessionViewProps) {
  return <div data-testid="replay-placeholder">{props.tree.events.length} events</div>;
}
