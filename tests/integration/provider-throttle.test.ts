import type { SessionInput } from '../../workflows/session-types';
import { openaiError, openaiText, startFakeOpenAIServer } from '../helpers/fake-openai-server';
import type { FakeSseServer } from '../helpers/fake-sse-server';
import { SessionHarness } from '../helpers/session-harness';

/*
 * A session on the real stack whose provider (the local OpenAI wire server) throttles it past the
 * model activity's retries: the workflow logs ModelThrottled, waits the short reset out on a
 * timer, and the same call goes through; with a backup model named, the backup takes over.
 */
describe('a throttled provider on the real stack', () => {
  const h = new SessionHarness();
  let server: FakeSseServer;
  const saved = { url: process.env.OPENAI_BASE_URL, key: process.env.OPENAI_API_KEY };
  /** As many 429s as the activity makes attempts (DEFAULT_RETRY_POLICY): the call ends throttled. */
  const throttledCall = () => Array.from({ length: 5 }, () => openaiError(429, 'Rate limit reached (test)', { 'retry-after-ms': '20' }));

  beforeAll(async () => {
    server = await startFakeOpenAIServer();
    // The worker's model activity reads its keys from the environment when it first makes a model.
    process.env.OPENAI_BASE_URL = `${server.url}/v1`;
    process.env.OPENAI_API_KEY = 'sk-test';
    await h.start();
  }, 120_000);
  afterAll(async () => {
    await h.stop();
    await server.close();
    process.env.OPENAI_BASE_URL = saved.url;
    process.env.OPENAI_API_KEY = saved.key;
  });

  const onOpenAI = (input: SessionInput): SessionInput => ({ ...input, model: 'openai/gpt-4o-mini' });

  test('the session logs ModelThrottled, waits for the reset, calls again with the same key and finishes', async () => {
    server.enqueue(...throttledCall(), openaiText('forty-two'));
    const run = await h.runInput(onOpenAI(h.input({ root: ['unused'] }, 'answer')));
    expect(run.result).toMatchObject({ status: 'completed' });
    const types = run.types();
    expect(types.filter((t) => t === 'ModelThrottled')).toHaveLength(1);
    expect(types.indexOf('ModelThrottled')).toBeLessThan(types.indexOf('ModelCalled'));
    const [throttled] = run.of('ModelThrottled');
    expect(throttled).toMatchObject({ provider: 'openai', model: 'openai/gpt-4o-mini', status: 429, attempt: 1, idempotencyKey: `recur:${run.id}:call:0` });
    expect(throttled.reason).toContain('Rate limit reached (test)');
    expect(run.of('ModelCalled')).toEqual([expect.objectContaining({ provider: 'openai', response: 'forty-two' })]);
    expect(server.requests.map((r) => r.headers['x-client-request-id'])).toEqual(Array(6).fill(`recur:${run.id}:call:0`));
  });

  test('a backup named for the run takes over from the throttled model, logged as ModelSwitched (backup)', async () => {
    server.requests.length = 0;
    server.enqueue(...throttledCall());
    const input = h.input({ root: ['from the backup'] }, 'answer');
    const run = await h.runInput({ ...onOpenAI(input), backup: { model: input.model, afterMinutes: 0 } });
    expect(run.result).toMatchObject({ status: 'completed' });
    expect(run.of('ModelSwitched')).toEqual([expect.objectContaining({ previous: 'openai/gpt-4o-mini', model: input.model, reason: 'backup' })]);
    const types = run.types();
    expect(types.indexOf('ModelThrottled')).toBeLessThan(types.indexOf('ModelSwitched'));
    expect(run.of('ModelCalled')).toEqual([expect.objectContaining({ provider: 'scripted' })]);
    expect(server.requests).toHaveLength(5);
  });
});
