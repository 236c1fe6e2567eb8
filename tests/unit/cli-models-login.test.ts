import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeLogin } from '../../activities/model/auth/login-store';
import { checkNeed } from '../../services/cli/commands/models';
import { cliInProcess } from '../helpers/cli-in-process';
import { PATHS, github, startFakeLoginServer, type FakeLoginServer } from '../helpers/fake-login-server';

let auth: FakeLoginServer;
let home: string;
beforeEach(async () => {
  auth = await startFakeLoginServer();
  home = mkdtempSync(join(tmpdir(), 'recur-models-'));
});
afterEach(() => auth.close());

const env = () => ({
  RECUR_HOME: home, OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: '', OLLAMA_BASE_URL: '', COPILOT_GITHUB_URL: auth.url, COPILOT_GITHUB_API_URL: auth.url,
});
type Row = { provider: string; spec: string; configured: boolean; needs: { what: string; met: boolean; detail: string }[] };
const rows = async () => (JSON.parse((await cliInProcess(['models', '--json'], env())).out[0]) as { providers: Row[] }).providers;
const row = (all: Row[], name: string) => all.find((r) => r.provider === name);

describe('recur models, login and logout', () => {
  test('models lists every provider with its spec form and needs, marking what is in place here', async () => {
    writeLogin(join(home, 'logins'), { provider: 'chatgpt', accessToken: 'a', expiresAt: null, refreshToken: 'r', rejected: 'HTTP 401: refresh_token_reused', updatedAt: 0 });
    const run = await cliInProcess(['models'], env());
    expect(run.code).toBe(0);
    const line = (name: string) => run.out.find((l) => l.split(/\s+/)[1] === name);
    expect(line('openai')).toMatch(/^✓ openai +openai\/<model> +OPENAI_API_KEY \(set\)$/);
    expect(line('anthropic')).toMatch(/^✗ anthropic +anthropic\/<model> +ANTHROPIC_API_KEY \(not set\)$/);
    expect(line('ollama')).toMatch(/^✓ ollama +ollama\/<model> +nothing \(a server at http:\/\/127\.0\.0\.1:11434\/v1\)$/);
    expect(line('copilot')).toMatch(/^✗ copilot +copilot\/<model> +recur login copilot \(not logged in\)$/);
    expect(line('chatgpt')).toMatch(/^✗ chatgpt .*refused: HTTP 401: refresh_token_reused; log in again/);
    expect(line('scripted')).toMatch(/^✓ scripted +scripted:<file\.json> +a script under RECUR_SCRIPTED_DIRS/);
    expect(line('local')).toMatch(/ local +local\/<name> +local\/smollm2: \S+\/SmolLM2-135M-Instruct\.Q4_1\.gguf \((installed|run recur setup)\); RECUR_LOCAL_MODELS_DIR for other GGUFs \(not set\)$/);

    const all = await rows();
    expect(all.map((r) => r.provider)).toEqual(expect.arrayContaining(['openai', 'anthropic', 'vllm', 'ollama', 'groq', 'openrouter', 'chatgpt', 'copilot', 'scripted']));
    const withDir = (JSON.parse((await cliInProcess(['models', '--json'], { ...env(), RECUR_LOCAL_MODELS_DIR: home })).out[0]) as { providers: Row[] }).providers;
    expect(row(withDir, 'local')).toMatchObject({ configured: true, needs: [expect.anything(), { what: 'RECUR_LOCAL_MODELS_DIR for other GGUFs', met: true, detail: home }] });
    expect(row(all, 'anthropic')).toMatchObject({ spec: 'anthropic/<model>', configured: false, needs: [{ what: 'ANTHROPIC_API_KEY', met: false, detail: 'not set' }] });
  });

  test('login copilot prints the code, waits for approval and stores the login owner-only; models then shows it; logout removes it', async () => {
    auth.on(PATHS.githubDeviceCode, github.deviceCode(0));
    auth.on(PATHS.githubToken, github.pending(), github.token('gho_cli'));
    auth.on(PATHS.copilotToken, github.copilot('copilot-cli', Math.floor(Date.now() / 1000) + 1800));
    const login = await cliInProcess(['login', 'copilot'], env());
    expect(login.code).toBe(0);
    expect(login.err.join('\n')).toContain('open https://github.com/login/device\nand enter the code  WDJB-MJHT');
    expect(login.out).toEqual(['logged in to GitHub Copilot; models copilot/<model> use it (tokens refresh as they expire)']);
    expect(statSync(join(home, 'logins', 'copilot.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'logins')).mode & 0o777).toBe(0o700);
    expect(row(await rows(), 'copilot')).toMatchObject({ configured: true, needs: [{ what: 'recur login copilot', met: true }] });

    expect((await cliInProcess(['logout', 'copilot'], env())).out).toEqual(['logged out of GitHub Copilot']);
    expect(row(await rows(), 'copilot')?.configured).toBe(false);
    expect((await cliInProcess(['logout', 'copilot'], env())).out).toEqual(['not logged in to GitHub Copilot']);
  });

  test('a need for any of several variables, or for a file under the home, is checked as declared', () => {
    const here = { env: { AWS_PROFILE: 'dev', AWS_ACCESS_KEY_ID: '' }, home, loginsDir: join(home, 'logins') };
    expect(checkNeed({ env: ['AWS_ACCESS_KEY_ID', 'AWS_PROFILE'] }, here)).toEqual({ what: 'one of AWS_ACCESS_KEY_ID, AWS_PROFILE', met: true, detail: 'AWS_PROFILE set' });
    const model = { file: 'models/smollm2.gguf', hint: 'run `recur setup`' };
    expect(checkNeed(model, here)).toEqual({ what: 'models/smollm2.gguf', met: false, detail: 'run `recur setup`' });
    mkdirSync(join(home, 'models'));
    writeFileSync(join(home, 'models', 'smollm2.gguf'), 'gguf');
    expect(checkNeed(model, here)).toEqual({ what: 'models/smollm2.gguf', met: true, detail: 'installed' });
  });

  test('an unknown login provider is a usage error naming the known ones', async () => {
    expect(await cliInProcess(['login', 'claude'], env())).toMatchObject({ code: 2, message: 'usage: recur login <chatgpt|copilot> [--json]' });
  });
});
