/**
 * What the viewer's views share: the loaded session tree, the daemon's links, and the tree's
 * verdict. Types from the daemon and the projector are imported as types only, so none of
 * their Node code reaches the bundle.
 */
import type { ProblemFrame, UiInfo } from '../../services/daemon/api-types';
import type { TreeVerdict } from '../../log/verify-tree';
import type { StoredEvent } from '../../schemas';

export interface TreeState {
  /** The tree loaded: the root of the session the page shows. */
  rootId: string;
  /** The session the page is about (the root or one of its descendants). */
  focus: string;
  /** Every event of the tree, in causal order (log/causal-order.ts). */
  events: readonly StoredEvent[];
  /** The tree's harness log (`harness:<rootId>`), in seq order. */
  harness: readonly StoredEvent[];
  problems: readonly ProblemFrame[];
  /** While the tree is still loading: events per session it holds in all (`events` has the first of them). Null once loaded. */
  expected: Readonly<Record<string, number>> | null;
  /** Whether the live stream is open (events may still arrive). */
  live: boolean;
  /** Bumped on every change, for memoisation. */
  version: number;
}

/** `GET /v1/ui/info`, as the daemon defines it. */
export type { UiInfo } from '../../services/daemon/api-types';

export interface SessionViewProps {
  tree: TreeState;
  info: UiInfo;
  /** The tree's verification from the raw log; null while it loads. */
  verdict: TreeVerdict | null;
  /** The selected event's id, shared by the timeline, the detail panel and the scrubber. */
  selected: string | null;
  select(eventId: string | null): void;
  /** Verifies the tree again (the verdict goes null until the new one arrives). */
  recheck(): void;
}
