import { spawnSync } from 'node:child_process';
import { stackPaths } from '../../config/home-paths';
import { repoRoot } from '../../services/home/repo-root';
import { buildPrompt } from '../../activities/prompt/build-prompt';
import { SMOLLM2 } from '../../activities/model/local-models';
import type { SessionResult } from '../../workflows/session-types';
import { SessionHarness } from '../helpers/session-harness';
import { createHarnessClient } from '../../services/worker/harness-client';
import { harnessPromptSection } from '../../services/worker/harness-reads';

/*
 * A real model drives a real session: SmolLM2-135M-Instruct, run on the CPU by the stack's own
 * worker (node-llama-cpp loads only outside jest's module sandbox). Whatever it writes is parsed,
 * any code runs in the kernel, and the session ends with a terminal event; its token counts are
 * the model's own tokenizer's.
 */
const h = new SessionHarness();

beforeAll(() => h.connect(), 60_000);
afterAll(() => h.stop());

/** Token counts by SmolLM2's own tokenizer and chat template, in a plain node process (the binding is ESM-only). */
function countTokens(system: string, messages: unknown[], reply: string): { prompt: number; reply: number } {
  const script = `
    const { toHistory } = require(${JSON.stringify(`${repoRoot()}/dist/activities/model/local.js`)});
    (async () => {
      const { getLlama, LlamaChat, LlamaLogLevel } = await import('node-llama-cpp');
      const { system, messages, reply, path } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
      const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
      const model = await llama.loadModel({ modelPath: path });
      const chat = new LlamaChat({ contextSequence: (await model.createContext({ contextSize: 2048, threads: 1 })).getSequence() });
      const history = [...toHistory(system, messages), { type: 'model', response: [] }];
      const prompt = chat.chatWrapper.generateContextState({ chatHistory: history }).contextText.tokenize(model.tokenizer).length;
      console.log(JSON.stringify({ prompt, reply: model.tokenize(reply).length }));
      process.exit(0);
    })();`;
  const path = `${stackPaths(h.config).localModels}/${SMOLLM2.file}`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: repoRoot(), input: JSON.stringify({ system, messages, reply, path }), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

it('local/smollm2 runs a session end to end on the stack: parsed, run, ended, counted by its tokenizer', async () => {
  const input = { ...h.input({}, 'Compute 17 * 23 with Python, then give the result as your final answer.', { maxTurns: 3 }), model: 'local/smollm2' };
  await h.client.workflow.start('agentSessionWorkflow', { taskQueue: h.config.temporal.taskQueue, workflowId: input.sessionId, args: [input] });
  const result = await h.result(input.sessionId);
  const run = await h.read(input.sessionId, result as SessionResult);

  const types = run.types();
  expect(['SessionCompleted', 'SessionFailed']).toContain(types[types.length - 1]);
  const calls = run.of('ModelCalled');
  expect(calls.length).toBeGreaterThan(0);
  for (const c of calls) expect(c).toMatchObject({ provider: 'local', model: 'smollm2', usageSource: 'reported', costUsd: 0 });
  // Every cell the model asked for ran in the kernel and came back.
  expect(run.of('CellExecuted').length).toBe(run.of('CellRequested').length);

  // The first call's counts, recomputed from the log by the model's tokenizer: the prompt as the
  // model activity rebuilt it and the reply. A fresh workspace has no context files; the harness
  // is the home's, which earlier test files may have edited, so it is read as the worker reads it.
  const events = run.sessions.get(input.sessionId)!;
  const firstCall = events.findIndex((e) => e.type === 'ModelCalled');
  const harness = createHarnessClient(h.client, { taskQueue: h.config.temporal.taskQueue, globalScope: h.config.harness.globalScope });
  const prompt = buildPrompt(events.slice(0, firstCall), null, [], await harnessPromptSection(harness)(input.sessionId));
  const counted = countTokens(prompt.system, prompt.messages, calls[0].response);
  expect(calls[0].tokensIn).toBe(counted.prompt);
  // tokensOut counts the tokens the model generated. Tokenizing the reply's text again need not
  // give the same count: for a BPE tokenizer, detokenizing and tokenizing again is no identity
  // (a run here generated 128 tokens whose text tokenizes to 127). So the recount is close, not
  // equal; usageSource above says the counts are the model's own, not the four-characters-a-token estimate.
  expect(Math.abs(calls[0].tokensOut - counted.reply)).toBeLessThanOrEqual(Math.max(2, Math.ceil(counted.reply / 20)));
  expect(calls[0].tokensIn).toBeGreaterThan(100);
}, 600_000);

it('a local model missing from the models directory fails the session at once, naming the setup command', async () => {
  const input = { ...h.input({}, 'never runs', { maxTurns: 2 }), model: 'local/not-installed' };
  await h.client.workflow.start('agentSessionWorkflow', { taskQueue: h.config.temporal.taskQueue, workflowId: input.sessionId, args: [input] });
  const run = await h.read(input.sessionId, await h.result(input.sessionId));
  expect(run.of('SessionFailed')).toEqual([expect.objectContaining({ kind: 'model_error', reason: expect.stringContaining('RECUR_LOCAL_MODELS_DIR') })]);
});
