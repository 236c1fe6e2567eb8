import type { IncomingMessage } from 'node:http';
import { bearerMatches } from './auth-token';
import { checkHost, checkOrigin, forbidden } from './host-check';
import { HttpError } from '../../errors';
import { sessionCookieOf, type UiAuth } from './ui-auth';

/** How a request proved itself: the daemon token (CLI, scripts) or the viewer's session cookie (a browser). */
export type AuthVia = 'bearer' | 'cookie';

const unauthorized = () => new HttpError(401, 'missing or wrong bearer token (see <RECUR_HOME>/run/daemon.token)', 'UnauthorizedError');
const signedOut = () => new HttpError(401, 'the viewer is signed out: run `recur ui` for a new link', 'UnauthorizedError');

/**
 * Every API request and upgrade carries the bearer token or the viewer's cookie. A cookie came
 * from a browser, so it counts only under the daemon's own Host and Origin, and only to read:
 * GET requests and the events WebSocket (which must name the daemon's origin).
 */
export function authenticate(req: IncomingMessage, token: string, auth: UiAuth, upgrade: boolean): AuthVia {
  if (bearerMatches(req.headers.authorization, token)) return 'bearer';
  const cookie = sessionCookieOf(req.headers.cookie);
  if (cookie === undefined) throw unauthorized();
  const host = checkHost(req);
  if (!auth.isSession(cookie)) throw signedOut();
  checkOrigin(req, host, upgrade);
  if (!upgrade && req.method !== 'GET') throw forbidden('the viewer is read-only');
  return 'cookie';
}
