/**
 * The viewer's hash routes: `#/` the sessions list, `#/s/<session>/<tab>[?e=<event>]` a session
 * page. Parsing is total: anything unknown is the list, so a stale link never shows a blank page. Pure.
 */
export const TABS = ['timeline', 'tree', 'replay', 'verify', 'charts'] as const;
export type Tab = (typeof TABS)[number];

export type Route =
  | { view: 'list' }
  | { view: 'session'; sessionId: string; tab: Tab; event: string | null };

const isTab = (s: string): s is Tab => (TABS as readonly string[]).includes(s);

function decode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  const [pathPart, query = ''] = path.split('?', 2);
  const m = /^\/s\/([^/]+)(?:\/([^/]*))?\/?$/.exec(pathPart);
  const sessionId = m ? decode(m[1]) : null;
  if (!m || !sessionId) return { view: 'list' };
  const tab = m[2] && isTab(m[2]) ? m[2] : 'timeline';
  const e = new URLSearchParams(query).get('e');
  return { view: 'session', sessionId, tab, event: e === null || e === '' ? null : e };
}

export function formatRoute(route: Route): string {
  if (route.view === 'list') return '#/';
  const base = `#/s/${encodeURIComponent(route.sessionId)}/${route.tab}`;
  return route.event === null ? base : `${base}?e=${encodeURIComponent(route.event)}`;
}

/** The one-time code of a `#login=<code>` link, or null when the fragment is no login link. */
export function loginCode(hash: string): string | null {
  const m = /^#login=([A-Za-z0-9_-]+)$/.exec(hash);
  return m ? m[1] : null;
}
