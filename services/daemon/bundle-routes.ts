import type { ListSessionsReply } from './api-types';
import { notFound } from './http-error';
import type { ApiReply, ApiRequest, ViewerDeps } from './route-types';
import { viewerRoute } from './viewer-routes';

/**
 * The API of a viewer over one audit bundle (`recur view`): the daemon's viewer reads, over the
 * bundle. The sessions list is empty because no Temporal knows the bundle's tree; the page lists
 * it from the catalog, as it lists a tree Temporal has forgotten.
 */
export function bundleRoutes(deps: ViewerDeps): (req: ApiRequest) => Promise<ApiReply> {
  return async (req) => {
    const route = viewerRoute(deps, req);
    if (route) return route;
    if (req.method === 'GET' && req.segments.join('/') === 'v1/sessions') return { status: 200, body: { sessions: [] } satisfies ListSessionsReply };
    throw notFound(`no route ${req.method} /${req.segments.join('/')}: this viewer only reads one audit bundle`);
  };
}
