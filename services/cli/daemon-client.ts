import { readFileSync } from 'node:fs';
import type { RecurConfig } from '../../config';
import { ExitError } from '../../errors';
import { traceHeaders } from '../../observability/http-tracing';
import type { ErrorBody } from '../daemon/api-types';
import { daemonPaths, daemonUrl } from '../daemon/paths';

export const DAEMON_NOT_RUNNING = 'the Recur daemon is not running; start it with `recur up`';

export interface DaemonClient {
  /** `http://host:port` of the daemon. */
  readonly url: string;
  readonly token: string;
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
}

/** `/v1/sessions/<id>` with the id as one encoded segment (ids contain `/`). */
export const sessionPath = (sessionId: string, action?: string): string =>
  `/v1/sessions/${encodeURIComponent(sessionId)}${action ? `/${action}` : ''}`;

/** Whether a failed fetch or WebSocket means nobody listens on the daemon's port. */
export function isConnectionRefused(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined, depth = 0; e && depth < 4; depth++) {
    if (e.code === 'ECONNREFUSED') return true;
    e = e.cause as typeof e;
  }
  return false;
}

function readToken(config: RecurConfig): string {
  try {
    return readFileSync(daemonPaths(config).token, 'utf8').trim();
  } catch {
    throw new ExitError(1, DAEMON_NOT_RUNNING);
  }
}

/** A client for the daemon this home's `recur up` started; fails with DAEMON_NOT_RUNNING when there is none. */
export function connectDaemon(config: RecurConfig): DaemonClient {
  const url = daemonUrl(config);
  const token = readToken(config);

  async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${url}${path}`, {
        method,
        headers: { ...traceHeaders(), authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      if (isConnectionRefused(err)) throw new ExitError(1, DAEMON_NOT_RUNNING);
      throw err;
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      throw new ExitError(1, `the daemon answered ${method} ${path} with ${res.status} and a body that is not JSON`);
    }
    if (res.status === 401) throw new ExitError(1, `the daemon refused the token in ${daemonPaths(config).token}; restart it with \`recur down && recur up\``);
    const error = (parsed as ErrorBody | undefined)?.error;
    // A model that cannot work where the stack runs: Recur could not run the tree (CI's exit 3).
    if (res.status === 422 && error?.name === 'ModelCredentialsError') throw new ExitError(3, error.message);
    if (!res.ok) throw new ExitError(1, error?.message ?? `daemon error ${res.status}`);
    return parsed as T;
  }

  return {
    url,
    token,
    get: (path) => request('GET', path),
    post: (path, body) => request('POST', path, body),
  };
}
