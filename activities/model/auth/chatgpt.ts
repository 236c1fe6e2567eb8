import { ProviderError } from '../../../errors';
import { authRequest, cancelled, field, realSleep } from './auth-http';
import { refusedReason, urlFrom, type LoginDeps, type LoginFlow, type RefreshResult } from './login-flow';
import type { LoginRecord } from './login-store';

/** The OAuth client OpenAI's Codex CLI signs in with; ChatGPT plans are billed through it. */
const CLIENT_ID = 'app_EMoamEEZ73f0CkXaXp7hrann';
/** OpenAI's own limit on an unapproved device code. */
const DEVICE_CODE_LIFETIME_MS = 15 * 60_000;

const env = { auth: 'CHATGPT_AUTH_URL' } as const;

/**
 * ChatGPT (Codex): OpenAI's device authorization for Codex. A user code and a device auth id
 * come from `deviceauth/usercode`; `deviceauth/token` answers 403/404 until the user approves at
 * `<issuer>/codex/device`, then an authorization code with its PKCE verifier, which `oauth/token`
 * turns into id, access and refresh tokens. Calls go to the Codex backend's Responses API with
 * the access token and the account id from the id token.
 */
export const CHATGPT: LoginFlow = {
  name: 'chatgpt',
  title: 'ChatGPT (Codex)',
  urlEnv: [env.auth],
  async login(deps) {
    const issuer = urlFrom(deps.env, env.auth, 'https://auth.openai.com');
    const code = await authRequest('chatgpt', `${issuer}/api/accounts/deviceauth/usercode`, { json: { client_id: CLIENT_ID }, signal: deps.signal });
    if (code.status === 404) throw new ProviderError('chatgpt', `device code login is not enabled at ${issuer}`, 404, { retryable: false });
    if (code.status !== 200) throw new ProviderError('chatgpt', `device code request failed: HTTP ${code.status}`, code.status, { retryable: false });
    const deviceAuthId = field('chatgpt', code, 'device_auth_id', 'device code request');
    const userCode = code.body?.user_code ?? code.body?.usercode;
    if (typeof userCode !== 'string' || userCode === '') throw new ProviderError('chatgpt', 'device code request: the reply has no user_code', code.status, { retryable: false });
    deps.onPrompt({ verificationUrl: `${issuer}/codex/device`, userCode });
    const approved = await pollApproval(issuer, deviceAuthId, userCode, Number(code.body?.interval ?? 5) * 1000, deps);
    const tokens = await authRequest('chatgpt', `${issuer}/oauth/token`, {
      form: {
        grant_type: 'authorization_code',
        code: approved.code,
        redirect_uri: `${issuer}/deviceauth/callback`,
        client_id: CLIENT_ID,
        code_verifier: approved.verifier,
      },
      signal: deps.signal,
    });
    if (tokens.status !== 200) throw new ProviderError('chatgpt', `token exchange failed: ${refusedReason(tokens) ?? `HTTP ${tokens.status}`}`, tokens.status, { retryable: false });
    return fromTokens(tokens.body ?? {}, null);
  },
  async refresh(record, deps): Promise<RefreshResult> {
    const issuer = urlFrom(deps.env, env.auth, 'https://auth.openai.com');
    const reply = await authRequest('chatgpt', `${issuer}/oauth/token`, {
      json: { client_id: CLIENT_ID, grant_type: 'refresh_token', refresh_token: record.refreshToken, scope: 'openid profile email' },
      signal: deps.signal,
    });
    const rejected = refusedReason(reply);
    if (rejected) return { ok: false, rejected };
    if (reply.status !== 200) throw new ProviderError('chatgpt', `token refresh failed: HTTP ${reply.status}`, reply.status, { retryable: true });
    return { ok: true, record: fromTokens(reply.body ?? {}, record) };
  },
  callAuth: (record) => ({
    headers: {
      authorization: `Bearer ${record.accessToken}`,
      ...(record.accountId && { 'chatgpt-account-id': record.accountId }),
      'openai-beta': 'responses=experimental',
      originator: 'recur',
    },
  }),
};

async function pollApproval(issuer: string, deviceAuthId: string, userCode: string, intervalMs: number, deps: LoginDeps): Promise<{ code: string; verifier: string }> {
  const sleep = deps.sleep ?? realSleep;
  const deadline = Date.now() + DEVICE_CODE_LIFETIME_MS;
  for (;;) {
    try {
      await sleep(intervalMs, deps.signal);
    } catch {
      throw cancelled('chatgpt');
    }
    if (Date.now() > deadline) throw new ProviderError('chatgpt', 'the device code expired before it was approved; run `recur login chatgpt` again', undefined, { retryable: false });
    const poll = await authRequest('chatgpt', `${issuer}/api/accounts/deviceauth/token`, { json: { device_auth_id: deviceAuthId, user_code: userCode }, signal: deps.signal });
    // OpenAI answers "not yet" as 403 or 404, not as an RFC 8628 error.
    if (poll.status === 403 || poll.status === 404) continue;
    if (poll.status !== 200) throw new ProviderError('chatgpt', `device login failed: ${refusedReason(poll) ?? `HTTP ${poll.status}`}`, poll.status, { retryable: false });
    return { code: field('chatgpt', poll, 'authorization_code', 'device login'), verifier: field('chatgpt', poll, 'code_verifier', 'device login') };
  }
}

/** A token reply as a record; a refresh reply may leave out the id and refresh tokens, which then stay as they were. */
function fromTokens(body: Record<string, unknown>, previous: LoginRecord | null): LoginRecord {
  const access = body.access_token;
  if (typeof access !== 'string' || access === '') throw new ProviderError('chatgpt', 'the token reply has no access_token', undefined, { retryable: false });
  const refresh = typeof body.refresh_token === 'string' && body.refresh_token !== '' ? body.refresh_token : previous?.refreshToken;
  if (!refresh) throw new ProviderError('chatgpt', 'the token reply has no refresh_token', undefined, { retryable: false });
  const idClaims = typeof body.id_token === 'string' ? jwtClaims(body.id_token) : null;
  const auth = idClaims?.['https://api.openai.com/auth'] as { chatgpt_account_id?: unknown } | undefined;
  const accountId = typeof auth?.chatgpt_account_id === 'string' ? auth.chatgpt_account_id : previous?.accountId;
  const expiresIn = Number(body.expires_in);
  const exp = Number(jwtClaims(access)?.exp);
  const expiresAt = Number.isFinite(expiresIn) && expiresIn > 0 ? Date.now() + expiresIn * 1000 : Number.isFinite(exp) ? exp * 1000 : null;
  return { provider: 'chatgpt', accessToken: access, expiresAt, refreshToken: refresh, ...(accountId && { accountId }), updatedAt: Date.now() };
}

/** A JWT's payload, unverified: only read for what the server itself put there (account id, expiry). Null when not a JWT. */
export function jwtClaims(token: string): Record<string, unknown> | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
