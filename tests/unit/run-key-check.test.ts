import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialProblem } from '../../activities/model/credential-check';
import { defaultConfig } from '../../config/defaults';
import { ExitError } from '../../errors';
import { backupRequest } from '../../services/cli/backup-flags';
import { formatSessionTable } from '../../services/cli/commands/ls';
import { startRootSession } from '../../services/cli/commands/run';
import { connectDaemon } from '../../services/cli/daemon-client';
import { fakeSessions, startTestServer } from '../helpers/daemon-test-server';

/*
 * A run whose model cannot work where the stack runs is refused before its workflow starts, so
 * before any SessionStarted: exit 3, one line naming what to set.
 */

const home = mkdtempSync(join(tmpdir(), 'recur-keys-'));
const local = { installedDir: join(home, 'models'), modelsDir: null, threads: 1, contextTokens: 512, maxTokens: 64 };
const here = (env: Record<string, string>) => ({ env, loginsDir: join(home, 'logins'), local });

describe('what a model needs, checked before the run starts', () => {
  test.each([
    ['anthropic/claude-sonnet-4-5', {}, 'ANTHROPIC_API_KEY is not set; set it for model anthropic/claude-sonnet-4-5'],
    ['anthropic/claude-sonnet-4-5', { ANTHROPIC_API_KEY: 'sk-proj-abc' }, 'ANTHROPIC_API_KEY does not look like a key for anthropic (those start "sk-ant-")'],
    ['openai/gpt-4o', { OPENAI_API_KEY: 'sk-abc\n' }, 'OPENAI_API_KEY holds whitespace or control characters'],
    ['gemini/gemini-2.5-flash', {}, 'one of GEMINI_API_KEY, GOOGLE_API_KEY is not set'],
    ['azure/my-deployment', { AZURE_OPENAI_API_KEY: 'k' }, 'AZURE_OPENAI_ENDPOINT is not set'],
    ['bedrock/amazon.nova-pro-v1:0', { AWS_REGION: 'us-east-1' }, 'one of AWS_BEARER_TOKEN_BEDROCK, AWS_ACCESS_KEY_ID is not set'],
    ['chatgpt/gpt-5', {}, 'not logged in to chatgpt; run `recur login chatgpt`'],
    ['local/smollm2', {}, 'is not installed; run `recur setup`'],
  ])('%s with %j: %s', (spec, env, message) => {
    expect(credentialProblem(spec, here(env))).toContain(message);
  });

  test('a key of the right shape, a key for another endpoint, and a local model that is there pass', () => {
    expect(credentialProblem('anthropic/claude-sonnet-4-5', here({ ANTHROPIC_API_KEY: 'sk-ant-api03-x' }))).toBeNull();
    // A compatible server's key has its own format.
    expect(credentialProblem('openai/gpt-4o', here({ OPENAI_API_KEY: 'local-key', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }))).toBeNull();
    mkdirSync(local.installedDir, { recursive: true });
    writeFileSync(join(local.installedDir, 'SmolLM2-135M-Instruct.Q4_1.gguf'), '');
    expect(credentialProblem('local/smollm2', here({}))).toBeNull();
  });
});

describe('recur run with a key that cannot work', () => {
  test('the daemon refuses the start, checked where the worker calls models, and recur run exits 3 with its one line; no session starts', async () => {
    const fake = fakeSessions();
    // The stack holds an OpenAI key and no Anthropic one; the shell running `recur run` holds neither.
    const srv = await startTestServer({ sessions: fake.service, modelEnv: { OPENAI_API_KEY: 'sk-test' } });
    const saved = { ...process.env };
    delete process.env.OPENAI_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      const ctx = (flags: Record<string, string>) => ({ args: [], flags, out: () => undefined, err: () => undefined });
      const daemon = connectDaemon(srv.config);
      const error = await startRootSession(ctx({ model: 'openai/gpt-4o', 'backup-model': 'anthropic/claude-sonnet-4-5' }), 'task', srv.config, daemon).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExitError);
      expect(error).toMatchObject({ code: 3, message: 'ANTHROPIC_API_KEY is not set; set it for model anthropic/claude-sonnet-4-5' });
      expect(fake.calls.started).toEqual([]);
      // The stack's own key is what counts, not the shell's.
      await expect(startRootSession(ctx({ model: 'openai/gpt-4o' }), 'task', srv.config, daemon)).resolves.toMatch(/\S/);
      expect(fake.calls.started).toHaveLength(1);
    } finally {
      process.env = saved;
      await srv.close();
    }
  });

  test('--backup-after-minutes needs a backup, and is held to its range', () => {
    const config = defaultConfig();
    expect(() => backupRequest({ 'backup-after-minutes': '5' }, config, (s) => s)).toThrow('needs a backup model');
    expect(() => backupRequest({ 'backup-model': 'openai/gpt-4o', 'backup-after-minutes': '-1' }, config, (s) => s)).toThrow('--backup-after-minutes must be an integer');
    expect(backupRequest({ 'backup-model': 'openai/gpt-4o', 'backup-after-minutes': '5' }, config, (s) => s)).toEqual({ model: 'openai/gpt-4o', afterMinutes: 5 });
    expect(backupRequest({}, config, (s) => s)).toBeUndefined();
  });
});

describe('recur ls', () => {
  test('shows a session waiting out a throttle as throttled until the reset', () => {
    const [, row] = formatSessionTable([{ sessionId: 'r1', status: 'running', startTime: '2030-01-01T00:00:00.000Z', closeTime: null, phase: 'throttled', throttledUntil: '2030-01-01T00:01:30.000Z' }]);
    expect(row).toContain('throttled until 2030-01-01 00:01:30Z');
  });
});
