import { ProviderError } from '../../../errors';
import { authRequest, field } from './auth-http';
import { githubDeviceLogin } from './github-device';
import { refusedReason, urlFrom, type LoginFlow, type RefreshDeps } from './login-flow';
import type { LoginRecord } from './login-store';

/** The OAuth app GitHub's own Copilot editor plugins log in with; the Copilot token exchange accepts its tokens. */
const CLIENT_ID = 'Iv1.b507a08c87ecfe98';

/** Copilot's API answers editors only: every call (and the token exchange) says which editor and plugin it is. */
const EDITOR_HEADERS = {
  'editor-version': 'vscode/1.99.3',
  'editor-plugin-version': 'copilot-chat/0.26.7',
  'user-agent': 'GitHubCopilotChat/0.26.7',
};

const env = { github: 'COPILOT_GITHUB_URL', githubApi: 'COPILOT_GITHUB_API_URL' } as const;

/**
 * GitHub Copilot: GitHub's device flow gives a long-lived GitHub OAuth token (the record's
 * refresh token), exchanged at `copilot_internal/v2/token` for a Copilot token that lasts about
 * half an hour; calls go to Copilot's Chat Completions API with it.
 */
export const COPILOT: LoginFlow = {
  name: 'copilot',
  title: 'GitHub Copilot',
  urlEnv: [env.github, env.githubApi],
  async login(deps) {
    const github = await githubDeviceLogin('copilot', urlFrom(deps.env, env.github, 'https://github.com'), CLIENT_ID, deps);
    const exchanged = await exchange(github, deps);
    if (!exchanged.ok) throw new ProviderError('copilot', `GitHub login worked but Copilot refused it (${exchanged.rejected}); does this account have Copilot?`, undefined, { retryable: false });
    return exchanged.record;
  },
  refresh: (record, deps) => exchange(record.refreshToken, deps),
  callAuth: (record) => ({
    // Business and enterprise seats have an API host of their own; the exchange names it.
    ...(record.apiBaseUrl && { baseUrl: record.apiBaseUrl }),
    headers: {
      authorization: `Bearer ${record.accessToken}`,
      ...EDITOR_HEADERS,
      'copilot-integration-id': 'vscode-chat',
      'openai-intent': 'conversation-panel',
    },
  }),
};

async function exchange(githubToken: string, deps: RefreshDeps): Promise<{ ok: true; record: LoginRecord } | { ok: false; rejected: string }> {
  const reply = await authRequest('copilot', `${urlFrom(deps.env, env.githubApi, 'https://api.github.com')}/copilot_internal/v2/token`, {
    method: 'GET',
    headers: { authorization: `token ${githubToken}`, ...EDITOR_HEADERS },
    signal: deps.signal,
  });
  const rejected = refusedReason(reply);
  if (rejected) return { ok: false, rejected };
  if (reply.status !== 200) throw new ProviderError('copilot', `Copilot token exchange failed: HTTP ${reply.status}`, reply.status, { retryable: true });
  const expiresAt = Number(reply.body?.expires_at);
  const api = (reply.body?.endpoints as { api?: unknown } | undefined)?.api;
  return {
    ok: true,
    record: {
      provider: 'copilot',
      accessToken: field('copilot', reply, 'token', 'Copilot token exchange'),
      expiresAt: Number.isFinite(expiresAt) && expiresAt > 0 ? expiresAt * 1000 : null,
      refreshToken: githubToken,
      ...(typeof api === 'string' && api !== '' && { apiBaseUrl: api }),
      updatedAt: Date.now(),
    },
  };
}
