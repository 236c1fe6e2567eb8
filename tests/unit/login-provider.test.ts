import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createModel } from '../../activities/model/registry';
import { readLogin, writeLogin, type LoginRecord } from '../../activities/model/auth/login-store';
import type { ModelCall } from '../../activities/model/types';
import { openaiError, openaiText, startFakeOpenAIServer } from '../helpers/fake-openai-server';
import type { FakeSseServer } from '../helpers/fake-sse-server';
import { sseFixture } from '../helpers/provider-fixtures';
import { PATHS, github, openai, startFakeLoginServer, type FakeLoginServer } from '../helpers/fake-login-server';

let api: FakeSseServer;
let auth: FakeLoginServer;
let dir: string;
beforeEach(async () => {
  api = await startFakeOpenAIServer();
  auth = await startFakeLoginServer();
  dir = join(mkdtempSync(join(tmpdir(), 'recur-logins-')), 'logins');
});
afterEach(async () => {
  await api.close();
  await auth.close();
});

const call: ModelCall = { system: 'You are root.', messages: [{ role: 'user', content: 'hi' }], tools: 'python', agent: 'root', callIndex: 0 };
const HOUR = 3_600_000;
/** What the recorded Responses stream (tests/fixtures/providers/openai-responses/text.sse) says. */
const RESPONSES_TEXT = 'Hello, wörld 🎉 done';
const responsesText = () => sseFixture('openai-responses', 'text.sse');

function copilotLogin(over: Partial<LoginRecord> = {}): LoginRecord {
  return { provider: 'copilot', accessToken: 'copilot-old', expiresAt: Date.now() + HOUR, refreshToken: 'gho_keep', updatedAt: 0, ...over };
}
function chatgptLogin(over: Partial<LoginRecord> = {}): LoginRecord {
  return { provider: 'chatgpt', accessToken: 'access-old', expiresAt: Date.now() + HOUR, refreshToken: 'refresh-old', accountId: 'acct-42', updatedAt: 0, ...over };
}

const copilotModel = () =>
  createModel('copilot/gpt-4o', { COPILOT_BASE_URL: api.url, COPILOT_GITHUB_API_URL: auth.url }, { loginsDir: dir, retry: { maxAttempts: 1 } });
const chatgptModel = () =>
  createModel('chatgpt/gpt-5', { CHATGPT_BASE_URL: api.url, CHATGPT_AUTH_URL: auth.url }, { loginsDir: dir, retry: { maxAttempts: 1 } });

describe('copilot/<model>', () => {
  test('a live Copilot token is sent with the editor headers, and nothing is refreshed', async () => {
    writeLogin(dir, copilotLogin());
    api.enqueue(openaiText('hello'));
    const res = await copilotModel().complete(call);
    expect(res.text).toBe('hello');
    expect(res.provider).toBe('copilot');
    const sent = api.requests[0];
    expect(sent.path).toBe('/chat/completions');
    expect(sent.headers).toMatchObject({ authorization: 'Bearer copilot-old', 'copilot-integration-id': 'vscode-chat' });
    expect(sent.headers['editor-version']).toMatch(/^vscode\//);
    expect(sent.body.model).toBe('gpt-4o');
    expect(auth.seen(PATHS.copilotToken)).toHaveLength(0);
  });

  test('an expired Copilot token is exchanged anew before the call, and written back owner-only', async () => {
    writeLogin(dir, copilotLogin({ expiresAt: Date.now() - 1000 }));
    auth.on(PATHS.copilotToken, github.copilot('copilot-new', Math.floor((Date.now() + HOUR) / 1000)));
    api.enqueue(openaiText('fresh'));
    expect((await copilotModel().complete(call)).text).toBe('fresh');
    expect(auth.seen(PATHS.copilotToken)[0].headers.authorization).toBe('token gho_keep');
    expect(api.requests[0].headers.authorization).toBe('Bearer copilot-new');
    expect(readLogin(dir, 'copilot')).toMatchObject({ accessToken: 'copilot-new', refreshToken: 'gho_keep' });
    expect(statSync(join(dir, 'copilot.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['copilot.json']);
  });

  test('a 401 on a token thought live re-exchanges it once and repeats the call with the new one', async () => {
    writeLogin(dir, copilotLogin());
    auth.on(PATHS.copilotToken, github.copilot('copilot-new', Math.floor((Date.now() + HOUR) / 1000)));
    api.enqueue(openaiError(401, 'token expired'), openaiText('after refresh'));
    expect((await copilotModel().complete(call)).text).toBe('after refresh');
    expect(api.requests.map((r) => r.headers.authorization)).toEqual(['Bearer copilot-old', 'Bearer copilot-new']);
    expect(readLogin(dir, 'copilot')?.accessToken).toBe('copilot-new');
  });

  test('a second 401 after the refresh is the error: no loop', async () => {
    writeLogin(dir, copilotLogin());
    auth.on(PATHS.copilotToken, github.copilot('copilot-new', Math.floor((Date.now() + HOUR) / 1000)));
    api.enqueue(openaiError(401, 'nope'), openaiError(401, 'still nope'));
    await expect(copilotModel().complete(call)).rejects.toThrow('HTTP 401: invalid_request_error: still nope');
    expect(auth.seen(PATHS.copilotToken)).toHaveLength(1);
  });

  test('the API host the exchange names for the account is used unless COPILOT_BASE_URL overrides it', async () => {
    writeLogin(dir, copilotLogin({ expiresAt: Date.now() - 1000 }));
    auth.on(PATHS.copilotToken, github.copilot('copilot-new', Math.floor((Date.now() + HOUR) / 1000), api.url));
    api.enqueue(openaiText('business seat'));
    const model = createModel('copilot/gpt-4o', { COPILOT_GITHUB_API_URL: auth.url }, { loginsDir: dir, retry: { maxAttempts: 1 } });
    expect((await model.complete(call)).text).toBe('business seat');
    expect(readLogin(dir, 'copilot')?.apiBaseUrl).toBe(api.url);
    writeLogin(dir, copilotLogin({ apiBaseUrl: 'http://127.0.0.1:9' }));
    api.enqueue(openaiText('overridden'));
    expect((await copilotModel().complete(call)).text).toBe('overridden');
  });

  test('without a login the model fails where it is made, naming recur login', () => {
    expect(() => copilotModel()).toThrow('not logged in; model copilot/gpt-4o needs `recur login copilot`');
  });
});

describe('chatgpt/<model>', () => {
  test('an expiring access token is refreshed with the refresh_token grant first; the rotated refresh token is kept', async () => {
    writeLogin(dir, chatgptLogin({ expiresAt: Date.now() + 5_000 }));
    auth.on(PATHS.openaiToken, openai.tokens({ access: 'access-new', refresh: 'refresh-new', expiresIn: 864_000 }));
    api.enqueue(responsesText());
    expect((await chatgptModel().complete(call)).text).toBe(RESPONSES_TEXT);
    // The Codex backend speaks the Responses API.
    expect(api.requests[0].path).toBe('/responses');
    expect(auth.seen(PATHS.openaiToken)[0].body).toEqual({
      client_id: 'app_EMoamEEZ73f0CkXaXp7hrann', grant_type: 'refresh_token', refresh_token: 'refresh-old', scope: 'openid profile email',
    });
    expect(api.requests[0].headers).toMatchObject({ authorization: 'Bearer access-new', 'chatgpt-account-id': 'acct-42' });
    // A refresh reply without an id token keeps the account the login named.
    expect(readLogin(dir, 'chatgpt')).toMatchObject({ accessToken: 'access-new', refreshToken: 'refresh-new', accountId: 'acct-42' });
  });

  test('concurrent calls on an expired token share one refresh: OpenAI refresh tokens are single-use', async () => {
    writeLogin(dir, chatgptLogin({ expiresAt: Date.now() - 1 }));
    auth.on(PATHS.openaiToken, openai.tokens({ access: 'access-new', refresh: 'refresh-new', expiresIn: 864_000 }));
    api.enqueue(responsesText(), responsesText());
    const model = chatgptModel();
    const texts = (await Promise.all([model.complete(call), model.complete(call)])).map((r) => r.text).sort();
    expect(texts).toEqual([RESPONSES_TEXT, RESPONSES_TEXT]);
    expect(auth.seen(PATHS.openaiToken)).toHaveLength(1);
  });

  test('a refused refresh token marks the login refused and says to log in again; later calls do not retry it', async () => {
    writeLogin(dir, chatgptLogin({ expiresAt: Date.now() - 1 }));
    auth.on(PATHS.openaiToken, openai.refused());
    const model = chatgptModel();
    await expect(model.complete(call)).rejects.toThrow(/stored login was refused \(HTTP 401: Your refresh token has already been used.*run `recur login chatgpt` again/);
    expect(readLogin(dir, 'chatgpt')?.rejected).toMatch(/^HTTP 401/);
    await expect(model.complete(call)).rejects.toThrow('stored login was refused');
    expect(auth.seen(PATHS.openaiToken)).toHaveLength(1);
    expect(api.requests).toHaveLength(0);
  });

  test('a refresh refused because another process spent the refresh token first uses that process\'s login, not marking it refused', async () => {
    writeLogin(dir, chatgptLogin({ expiresAt: Date.now() - 1 }));
    auth.on(PATHS.openaiToken, () => {
      writeLogin(dir, chatgptLogin({ accessToken: 'access-other', refreshToken: 'refresh-other' }));
      return openai.refused();
    });
    api.enqueue(responsesText());
    expect((await chatgptModel().complete(call)).text).toBe(RESPONSES_TEXT);
    expect(api.requests[0].headers.authorization).toBe('Bearer access-other');
    expect(readLogin(dir, 'chatgpt')).toMatchObject({ refreshToken: 'refresh-other' });
    expect(readLogin(dir, 'chatgpt')?.rejected).toBeUndefined();
  });

  test('a refresh the server fails (5xx) is an error that may pass, and the stored login stays as it was', async () => {
    writeLogin(dir, chatgptLogin({ expiresAt: Date.now() - 1 }));
    auth.on(PATHS.openaiToken, { status: 503, body: {} });
    await expect(chatgptModel().complete(call)).rejects.toMatchObject({ retryable: true });
    expect(readLogin(dir, 'chatgpt')).toMatchObject({ accessToken: 'access-old', refreshToken: 'refresh-old' });
    expect(readLogin(dir, 'chatgpt')?.rejected).toBeUndefined();
  });
});
