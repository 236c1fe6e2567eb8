import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecurConfig } from '../../config';
import type { UiCodeReply, UiInfo } from './api-types';
import { checkHost, checkOrigin, forbidden } from './host-check';
import { HttpError } from '../../errors';
import { notFound } from './http-error';
import { readJsonBody } from './read-json-body';
import type { AuthVia } from './request-auth';
import type { ApiReply, ApiRequest } from './route-types';
import { readUiFile, defaultUiDir } from './static-files';
import { clearedCookieHeader, createUiAuth, sessionCookieHeader, sessionCookieOf, type UiAuth } from './ui-auth';
import { createUiInfo } from './ui-info';

/** What the daemon serves the audit viewer with (docs/viewer.md). */
export interface Viewer {
  /** The built bundle (index.html, app.js, …). */
  dir: string;
  auth: UiAuth;
  info: () => Promise<UiInfo>;
}

export function createViewer(config: RecurConfig, dir = defaultUiDir()): Viewer {
  return { dir, auth: createUiAuth(config.ui), info: createUiInfo(config) };
}

/** The paths that are the viewer's own (no token, no cookie needed); the rest is the API. */
export const isViewerPath = (path: string): boolean => path === '/' || path === '/ui' || path.startsWith('/ui/');

const methodNotAllowed = (allowed: string) => new HttpError(405, `use ${allowed} here`, 'MethodNotAllowedError');
const LOGIN_BODY_BYTES = 4096;

async function login(viewer: Viewer, req: IncomingMessage, res: ServerResponse): Promise<number> {
  const body = (await readJsonBody(req, LOGIN_BODY_BYTES)) as { code?: unknown } | undefined;
  const code = body?.code;
  const cookie = typeof code === 'string' ? viewer.auth.redeem(code) : null;
  if (cookie === null) throw new HttpError(401, 'this sign-in link is unknown, used or expired: run `recur ui` for a new one', 'UnauthorizedError');
  res.writeHead(204, { 'set-cookie': sessionCookieHeader(cookie, viewer.auth.sessionSeconds) }).end();
  return 204;
}

function logout(viewer: Viewer, req: IncomingMessage, res: ServerResponse): number {
  const cookie = sessionCookieOf(req.headers.cookie);
  if (cookie !== undefined) viewer.auth.endSession(cookie);
  res.writeHead(204, { 'set-cookie': clearedCookieHeader() }).end();
  return 204;
}

/** Answers `/`, the bundle's files under `/ui/`, and the sign-in exchange; resolves to the status sent. */
export async function serveViewer(viewer: Viewer, req: IncomingMessage, res: ServerResponse, path: string): Promise<{ status: number }> {
  if (path === '/') {
    res.writeHead(302, { location: '/ui/' }).end();
    return { status: 302 };
  }
  const host = checkHost(req);
  const rest = path.slice('/ui/'.length);
  if (rest === 'login' || rest === 'logout') {
    if (req.method !== 'POST') throw methodNotAllowed('POST');
    checkOrigin(req, host, false);
    return { status: rest === 'login' ? await login(viewer, req, res) : logout(viewer, req, res) };
  }
  if (req.method !== 'GET') throw methodNotAllowed('GET');
  if (path === '/ui') {
    res.writeHead(302, { location: '/ui/' }).end();
    return { status: 302 };
  }
  const file = await readUiFile(viewer.dir, rest);
  res.writeHead(200, { 'content-type': file.type, 'content-length': file.bytes.length }).end(file.bytes);
  return { status: 200 };
}

/** `/v1/ui/*`, or undefined for any other API path. */
export function uiApiRoute(viewer: Viewer, req: ApiRequest, via: AuthVia): Promise<ApiReply> | undefined {
  const [version, collection, action, ...rest] = req.segments;
  if (version !== 'v1' || collection !== 'ui') return undefined;
  const route = `${req.method} ${action ?? ''}${rest.length ? '/…' : ''}`;
  if (route === 'GET info') return viewer.info().then((body) => ({ status: 200, body }));
  if (route === 'POST codes') {
    // A browser session must never mint the next one: a code comes only from whoever holds the token.
    if (via !== 'bearer') throw forbidden('sign-in codes are minted with the daemon token only');
    return Promise.resolve({ status: 201, body: viewer.auth.mintCode() satisfies UiCodeReply });
  }
  throw notFound(`no route ${req.method} /${req.segments.join('/')}`);
}
