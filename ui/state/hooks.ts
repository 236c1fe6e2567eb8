/** Preact hooks over the state modules: the route, the sign-in, the list poll, a session tree, the daemon's links. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ListSessionsReply } from '../../services/daemon/api-types';
import { isSignedOut, onSignedOut } from './api';
import type { CatalogReply } from '../../services/daemon/api-types';
import { mergeRows, type ListRow } from './list-model';
import { formatRoute, parseRoute, type Route } from './router';
import { source, sourceInfo } from './source';
import { TreeFeed, type FeedState } from './tree-feed';
import type { UiInfo } from './types';

export function useRoute(): Route {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = (): void => setHash(location.hash);
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return useMemo(() => parseRoute(hash), [hash]);
}

/** A new history entry, so back and forward walk the user's selections. */
export function navigate(route: Route): void {
  location.hash = formatRoute(route);
}

export function useSignedOut(): boolean {
  const [out, setOut] = useState(isSignedOut());
  useEffect(() => onSignedOut(() => setOut(true)), []);
  return out;
}

const POLL_MS = 2000;

export interface ListState {
  rows: ListRow[] | null;
  /** Whether the catalog has read the whole log yet (rows may still be missing their cost). */
  complete: boolean;
  error: string | null;
}

/** Polls the sessions and the catalog every 2 s; a poll starts only after the last one ended. */
export function useSessionList(): ListState {
  const [state, setState] = useState<ListState>({ rows: null, complete: false, error: null });
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const poll = async (): Promise<void> => {
      try {
        const [list, catalog] = await Promise.all([
          source().getJson<ListSessionsReply>('/v1/sessions?limit=500'),
          source().getJson<CatalogReply>('/v1/catalog'),
        ]);
        if (!stopped) setState({ rows: mergeRows(list.sessions, catalog.roots, Date.now()), complete: catalog.complete, error: null });
      } catch (err) {
        if (!stopped) setState((s) => ({ ...s, error: (err as Error).message }));
      }
      // A bundle's list never changes: read once.
      if (!stopped && !isSignedOut() && source().live) timer = setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
  return state;
}

const NO_TREE: FeedState = { model: null, live: false, verdict: null, error: null };

export function useTreeFeed(rootId: string): FeedState & { recheck(): void } {
  const [state, setState] = useState<FeedState>(NO_TREE);
  const [feed, setFeed] = useState<TreeFeed | null>(null);
  useEffect(() => {
    setState(NO_TREE);
    const f = new TreeFeed(rootId, source(), setState);
    setFeed(f);
    void f.start();
    return () => f.dispose();
  }, [rootId]);
  return { ...state, recheck: () => feed?.recheck() };
}

const NO_LINKS: UiInfo = { temporalUi: null, namespace: 'default', traceUrl: null };

/** `GET /v1/ui/info` as the page read it at start; without it the page just has no outside links (and no bundle notes). */
export function useUiInfo(): UiInfo {
  const [info, setInfo] = useState<UiInfo>(NO_LINKS);
  useEffect(() => {
    void sourceInfo().then((i) => setInfo(i ?? NO_LINKS));
  }, []);
  return info;
}
