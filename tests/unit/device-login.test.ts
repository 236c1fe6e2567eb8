import { CHATGPT } from '../../activities/model/auth/chatgpt';
import { COPILOT } from '../../activities/model/auth/copilot';
import type { DevicePrompt, LoginDeps } from '../../activities/model/auth/login-flow';
import { PATHS, github, openai, startFakeLoginServer, type FakeLoginServer } from '../helpers/fake-login-server';

let auth: FakeLoginServer;
beforeEach(async () => {
  auth = await startFakeLoginServer();
});
afterEach(() => auth.close());

/** Login deps whose waits are recorded, not slept: the intervals are asserted, no test waits on a clock. */
function deps(env: Record<string, string>, signal?: AbortSignal) {
  const waits: number[] = [];
  const prompts: DevicePrompt[] = [];
  const d: LoginDeps = { env, signal, onPrompt: (p) => prompts.push(p), sleep: async (ms) => void waits.push(ms) };
  return { d, waits, prompts };
}

describe('GitHub Copilot device login', () => {
  const env = () => ({ COPILOT_GITHUB_URL: auth.url, COPILOT_GITHUB_API_URL: auth.url });

  test('shows the code, polls through pending and slow_down at the asked interval, then exchanges the GitHub token for a Copilot token', async () => {
    auth.on(PATHS.githubDeviceCode, github.deviceCode(5));
    auth.on(PATHS.githubToken, github.pending(), github.slowDown(), github.pending(), github.token('gho_abc'));
    auth.on(PATHS.copilotToken, github.copilot('tid=copilot-1', 1_900_000_000, 'https://api.business.githubcopilot.com'));
    const { d, waits, prompts } = deps(env());
    const record = await COPILOT.login(d);
    expect(prompts).toEqual([{ verificationUrl: 'https://github.com/login/device', userCode: 'WDJB-MJHT' }]);
    // slow_down without a new interval adds 5 s for every later poll (RFC 8628 §3.5).
    expect(waits).toEqual([5000, 5000, 10000, 10000]);
    expect(auth.seen(PATHS.githubDeviceCode)[0].body).toEqual({ client_id: 'Iv1.b507a08c87ecfe98', scope: 'read:user' });
    expect(auth.seen(PATHS.githubToken)[0].body).toEqual({
      client_id: 'Iv1.b507a08c87ecfe98', device_code: 'dev-123', grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    });
    const exchange = auth.seen(PATHS.copilotToken)[0];
    expect(exchange.method).toBe('GET');
    expect(exchange.headers.authorization).toBe('token gho_abc');
    expect(exchange.headers['editor-version']).toMatch(/^vscode\//);
    expect(record).toMatchObject({
      provider: 'copilot', accessToken: 'tid=copilot-1', refreshToken: 'gho_abc', expiresAt: 1_900_000_000_000, apiBaseUrl: 'https://api.business.githubcopilot.com',
    });
  });

  test('slow_down that names an interval is taken as given', async () => {
    auth.on(PATHS.githubDeviceCode, github.deviceCode(5));
    auth.on(PATHS.githubToken, github.slowDown(12), github.token());
    auth.on(PATHS.copilotToken, github.copilot('t', 1_900_000_000));
    const { d, waits } = deps(env());
    await COPILOT.login(d);
    expect(waits).toEqual([5000, 12000]);
  });

  test.each([
    ['an expired code', github.expired(), 'the device code expired before it was approved'],
    ['a declined request', github.denied(), 'login denied'],
  ])('%s ends the login with a clear error and no token exchange', async (_what, reply, message) => {
    auth.on(PATHS.githubDeviceCode, github.deviceCode(1));
    auth.on(PATHS.githubToken, github.pending(), reply);
    await expect(COPILOT.login(deps(env()).d)).rejects.toThrow(message);
    expect(auth.seen(PATHS.copilotToken)).toHaveLength(0);
  });

  test('an account without Copilot fails at the exchange, saying so', async () => {
    auth.on(PATHS.githubDeviceCode, github.deviceCode(1));
    auth.on(PATHS.githubToken, github.token());
    auth.on(PATHS.copilotToken, github.noCopilot());
    await expect(COPILOT.login(deps(env()).d)).rejects.toThrow(/Copilot refused it \(HTTP 403.*does this account have Copilot/);
  });

  test('cancelling while it waits (Ctrl-C) stops the poll: no further request is made', async () => {
    auth.on(PATHS.githubDeviceCode, github.deviceCode(5));
    auth.on(PATHS.githubToken, github.pending());
    const cancel = new AbortController();
    const d: LoginDeps = {
      env: env(),
      signal: cancel.signal,
      onPrompt: () => {},
      // The second wait is where the user gives up.
      sleep: async (_ms, signal) => {
        if (auth.seen(PATHS.githubToken).length === 1) cancel.abort();
        if (signal?.aborted) throw new Error('aborted');
      },
    };
    await expect(COPILOT.login(d)).rejects.toThrow('login cancelled');
    expect(auth.seen(PATHS.githubToken)).toHaveLength(1);
  });
});

describe('ChatGPT (Codex) device login', () => {
  const env = () => ({ CHATGPT_AUTH_URL: auth.url });

  test('shows the code, polls while OpenAI answers 403/404, then trades the PKCE code for tokens with the account id', async () => {
    auth.on(PATHS.openaiUserCode, openai.userCode('7'));
    auth.on(PATHS.openaiDeviceToken, openai.pending(403), openai.pending(404), openai.approved());
    auth.on(PATHS.openaiToken, openai.tokens({ access: 'access-1', refresh: 'refresh-1', accountId: 'acct-42', expiresIn: 3600 }));
    const { d, waits, prompts } = deps(env());
    const before = Date.now();
    const record = await CHATGPT.login(d);
    expect(prompts).toEqual([{ verificationUrl: `${auth.url}/codex/device`, userCode: 'ABCD-12345' }]);
    // OpenAI sends the interval as a string.
    expect(waits).toEqual([7000, 7000, 7000]);
    expect(auth.seen(PATHS.openaiUserCode)[0].body).toEqual({ client_id: 'app_EMoamEEZ73f0CkXaXp7hrann' });
    expect(auth.seen(PATHS.openaiDeviceToken)[0].body).toEqual({ device_auth_id: 'deviceauth_abc', user_code: 'ABCD-12345' });
    const exchange = auth.seen(PATHS.openaiToken)[0];
    expect(exchange.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(exchange.body).toEqual({
      grant_type: 'authorization_code', code: 'auth-code-1', redirect_uri: `${auth.url}/deviceauth/callback`,
      client_id: 'app_EMoamEEZ73f0CkXaXp7hrann', code_verifier: 'verifier-1',
    });
    expect(record).toMatchObject({ provider: 'chatgpt', accessToken: 'access-1', refreshToken: 'refresh-1', accountId: 'acct-42' });
    expect(record.expiresAt).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(CHATGPT.callAuth(record).headers).toMatchObject({ authorization: 'Bearer access-1', 'chatgpt-account-id': 'acct-42' });
  });

  test('a refused device authorization (the user declined, or the code expired) ends the login without a token exchange', async () => {
    auth.on(PATHS.openaiUserCode, openai.userCode('1'));
    auth.on(PATHS.openaiDeviceToken, openai.pending(), { status: 400, body: { error: { message: 'Device code expired', code: 'deviceauth_expired' } } });
    await expect(CHATGPT.login(deps(env()).d)).rejects.toThrow('device login failed: HTTP 400: Device code expired');
    expect(auth.seen(PATHS.openaiToken)).toHaveLength(0);
  });

  test('a server without device login says so', async () => {
    auth.on(PATHS.openaiUserCode, { status: 404, body: {} });
    await expect(CHATGPT.login(deps(env()).d)).rejects.toThrow(`device code login is not enabled at ${auth.url}`);
  });
});
