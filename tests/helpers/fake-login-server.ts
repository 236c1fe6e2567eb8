import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local server speaking the two subscription logins' auth protocols: GitHub's OAuth device
 * flow and Copilot token exchange, and OpenAI's device authorization for Codex with its token
 * endpoint. Each path answers from its own queue of replies, in order, and every request is
 * recorded with its body (JSON or form) parsed.
 */
export interface AuthReplyStub {
  status: number;
  body: unknown;
}

export interface AuthRequestSeen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, string>;
}

export interface FakeLoginServer {
  url: string;
  requests: AuthRequestSeen[];
  /** Queues replies for `path` (e.g. `/login/oauth/access_token`); a function is called when the request arrives. */
  on(path: string, ...replies: (AuthReplyStub | (() => AuthReplyStub))[]): void;
  /** The requests made to `path`. */
  seen(path: string): AuthRequestSeen[];
  close(): Promise<void>;
}

export const PATHS = {
  githubDeviceCode: '/login/device/code',
  githubToken: '/login/oauth/access_token',
  copilotToken: '/copilot_internal/v2/token',
  openaiUserCode: '/api/accounts/deviceauth/usercode',
  openaiDeviceToken: '/api/accounts/deviceauth/token',
  openaiToken: '/oauth/token',
} as const;

export async function startFakeLoginServer(): Promise<FakeLoginServer> {
  const queues = new Map<string, (AuthReplyStub | (() => AuthReplyStub))[]>();
  const requests: AuthRequestSeen[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (raw += piece));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      const form = String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      const body = raw === '' ? {} : form ? Object.fromEntries(new URLSearchParams(raw)) : (JSON.parse(raw) as Record<string, string>);
      requests.push({ method: req.method ?? '', path, headers: req.headers, body });
      const next = queues.get(path)?.shift() ?? { status: 418, body: { error: `no reply queued for ${path}` } };
      const reply = typeof next === 'function' ? next() : next;
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    on: (path, ...replies) => queues.set(path, [...(queues.get(path) ?? []), ...replies]),
    seen: (path) => requests.filter((r) => r.path === path),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

const ok = (body: unknown): AuthReplyStub => ({ status: 200, body });

/** GitHub answers every device-flow poll with 200; the outcome is in the body (RFC 8628). */
export const github = {
  deviceCode: (interval = 5) => ok({ device_code: 'dev-123', user_code: 'WDJB-MJHT', verification_uri: 'https://github.com/login/device', expires_in: 899, interval }),
  pending: () => ok({ error: 'authorization_pending', error_description: 'The authorization request is still pending.' }),
  slowDown: (interval?: number) => ok({ error: 'slow_down', error_description: 'Too many requests.', ...(interval !== undefined && { interval }) }),
  expired: () => ok({ error: 'expired_token', error_description: 'The device_code has expired.' }),
  denied: () => ok({ error: 'access_denied', error_description: 'The authorization request was denied.' }),
  token: (token = 'gho_github_token') => ok({ access_token: token, token_type: 'bearer', scope: 'read:user' }),
  /** A Copilot token valid until `expiresAtSeconds`; `api` is the account's API host. */
  copilot: (token: string, expiresAtSeconds: number, api?: string) =>
    ok({ token, expires_at: expiresAtSeconds, refresh_in: 1500, ...(api && { endpoints: { api } }) }),
  noCopilot: (): AuthReplyStub => ({ status: 403, body: { message: 'Resource not accessible by integration' } }),
};

/** A JWT whose payload is `claims` (unsigned: the client only reads what the server put there). */
export function fakeJwt(claims: Record<string, unknown>): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}.signature`;
}

/** OpenAI's Codex device authorization: "not yet" is a 403 (or 404), approval hands over a PKCE code. */
export const openai = {
  userCode: (interval = '5') => ok({ device_auth_id: 'deviceauth_abc', user_code: 'ABCD-12345', interval }),
  pending: (status = 403): AuthReplyStub => ({ status, body: { error: { message: 'Device authorization is pending', code: 'deviceauth_authorization_pending' } } }),
  approved: () => ok({ authorization_code: 'auth-code-1', code_challenge: 'challenge-1', code_verifier: 'verifier-1' }),
  /** The token endpoint's answer, for the code exchange and for a refresh. */
  tokens: (opts: { access: string; refresh?: string; accountId?: string; expiresIn?: number }) =>
    ok({
      access_token: opts.access,
      ...(opts.refresh && { refresh_token: opts.refresh }),
      ...(opts.accountId && { id_token: fakeJwt({ email: 'dev@example.com', 'https://api.openai.com/auth': { chatgpt_account_id: opts.accountId } }) }),
      ...(opts.expiresIn !== undefined && { expires_in: opts.expiresIn }),
      token_type: 'Bearer',
    }),
  refused: (code = 'refresh_token_reused'): AuthReplyStub => ({ status: 401, body: { error: { message: 'Your refresh token has already been used to generate a new access token.', code } } }),
};
