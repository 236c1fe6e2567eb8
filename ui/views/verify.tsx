import type { SessionViewProps } from '../state/types';

/** Placeholder until the view lands. */
export function VerifyView(props: SessionViewProps) {
  return <div data-testid="verify-placeholder">{props.tree.events.length} events</div>;
}
