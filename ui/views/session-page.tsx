/**
 * One session's page: the tree it belongs to, loaded and followed live, under a header with its
 * id, state and Temporal link, and tabs for the views. The selected event lives in the URL
 * (`?e=`), so a link names it and back/forward keep it.
 */
import type { ComponentType } from 'preact';
import { useMemo } from 'preact/hooks';
import { sessionRoot } from '../../schemas/session-ids';
import { navigate, useTreeFeed, useUiInfo } from '../state/hooks';
import { formatRoute, TABS, type Route, type Tab } from '../state/router';
import { temporalLink } from '../model/links';
import { nodeStatuses } from '../state/tree-nodes';
import type { TreeVerdict } from '../../log/verify-tree';
import type { SessionViewProps, TreeState, UiInfo } from '../state/types';
import { ChartsView } from './charts';
import { ReplayView } from './replay';
import { TimelineView } from './timeline';
import { TreeView } from './tree';
import { VerifyView } from './verify';

type SessionRoute = Extract<Route, { view: 'session' }>;

const VIEWS: Record<Exclude<Tab, 'tree'>, ComponentType<SessionViewProps>> = {
  timeline: TimelineView, replay: ReplayView, verify: VerifyView, charts: ChartsView,
};

/** Tabs that show the selected event themselves; from any other, selecting one opens it in the timeline. */
const SHOWS_SELECTION: ReadonlySet<Tab> = new Set(['timeline', 'replay']);

function select(route: SessionRoute, event: string | null): void {
  if (SHOWS_SELECTION.has(route.tab)) {
    // Moving through events replaces the entry: the history keeps pages, not every keystroke.
    location.replace(formatRoute({ ...route, event }));
  } else {
    navigate({ ...route, tab: 'timeline', event });
  }
}

/** The tree's verification at a glance, linking to its view: checking, verified, or how many faults. */
function VerifyBadge(props: { route: SessionRoute; verdict: TreeVerdict | null }) {
  const { verdict } = props;
  const state = verdict === null ? 'pending' : verdict.ok ? 'ok' : 'failed';
  const text = verdict === null ? 'verifying…' : verdict.ok ? 'verified' : `${verdict.faults.length} fault${verdict.faults.length === 1 ? '' : 's'}`;
  return <a class={`verify-badge verify-${state}`} data-testid="verify-badge" data-state={state} href={formatRoute({ ...props.route, tab: 'verify' })}>{text}</a>;
}

function Header(props: { route: SessionRoute; status: string; live: boolean; info: UiInfo; verdict: TreeVerdict | null }) {
  const { route } = props;
  const temporal = temporalLink(props.info, route.sessionId);
  return (
    <div class="page-head">
      <a class="back" href="#/">← sessions</a>
      <h1 class="mono">{route.sessionId}</h1>
      <span class={`status status-${props.status}`} data-testid="session-status">{props.status}</span>
      {props.live ? <span class="live" title="following the log as it is written">live</span> : null}
      <VerifyBadge route={route} verdict={props.verdict} />
      {temporal ? <a data-testid="temporal-link" href={temporal} target="_blank" rel="noopener noreferrer">Temporal ↗</a> : null}
      <nav class="tabs">
        {TABS.map((tab) => (
          <a key={tab} data-testid={`tab-${tab}`} href={formatRoute({ ...route, tab })} aria-current={tab === route.tab ? 'page' : undefined}>{tab}</a>
        ))}
      </nav>
    </div>
  );
}

export function SessionPage(props: { route: SessionRoute }) {
  const { route } = props;
  const rootId = sessionRoot(route.sessionId);
  const feed = useTreeFeed(rootId);
  const info = useUiInfo();
  const model = feed.model;
  const tree = useMemo<TreeState | null>(() => model && {
    rootId, focus: route.sessionId, events: model.events, harness: model.harness, problems: model.problems, expected: model.expected,
    live: feed.live, version: model.version,
  }, [model, route.sessionId, feed.live]);
  const status = useMemo(() => (model ? nodeStatuses(model.events).get(route.sessionId) ?? 'unknown' : '…'), [model, route.sessionId]);
  const View = route.tab === 'tree' ? null : VIEWS[route.tab];
  return (
    <section class="session-page">
      <Header route={route} status={status} live={feed.live} info={info} verdict={feed.verdict} />
      {feed.error ? <p class="error">{feed.error}</p> : null}
      {tree === null ? <p class="notice">Loading the session tree…</p>
        : View === null ? <TreeView tree={tree} />
          : <View tree={tree} info={info} verdict={feed.verdict} selected={route.event} select={(e) => select(route, e)} recheck={feed.recheck} />}
    </section>
  );
}
