import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProviderError, ScriptExhaustedError } from '../../errors';
import { allowedScriptPath, createScriptedModel, loadScript } from '../../activities/model/scripted';
import type { ModelRequest } from '../../activities/model/types';

const top = mkdtempSync(join(tmpdir(), 'recur-scripted-'));
const dir = join(top, 'scripts');
mkdirSync(dir);

function scriptFile(name: string, content: string): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

function call(agent: string, callIndex: number): ModelRequest {
  return { model: 'script', system: 'sys', messages: [{ role: 'user', content: 'x'.repeat(40) }], tools: 'python', agent, callIndex };
}

const model = createScriptedModel({
  agents: {
    root: ['I will delegate.\n```python\nh = rlm("count")\n```', 'The answer is 42.'],
    counter: ['```python\nprint(6 * 7)\n```'],
  },
});

describe('scripted model', () => {
  test('each agent gets its replies in call order, with fenced code extracted', async () => {
    const first = await model.complete(call('root', 0));
    expect(first).toMatchObject({ text: 'I will delegate.\n```python\nh = rlm("count")\n```', code: 'h = rlm("count")', costUsd: 0, provider: 'scripted' });
    expect(first.toolCallId).toBeUndefined();
    expect(await model.complete(call('counter', 0))).toMatchObject({ code: 'print(6 * 7)' });
    expect(await model.complete(call('root', 1))).toMatchObject({ text: 'The answer is 42.', code: null });
  });

  test('with onTextDelta the reply streams in several pieces that join to its text', async () => {
    const pieces: string[] = [];
    const res = await model.complete({ ...call('root', 0), onTextDelta: (t) => pieces.push(t) });
    expect(pieces.length).toBe(4);
    expect(pieces.join('')).toBe(res.text);
  });

  test('the reply depends only on the call index, so a retried call gets the same reply', async () => {
    const a = await model.complete(call('root', 1));
    const b = await model.complete(call('root', 1));
    expect(b).toEqual(a);
  });

  test('usage is counted roughly as characters / 4', async () => {
    const res = await model.complete(call('root', 1));
    // 'sys' + 40 x's = 43 chars -> 11 tokens; 'The answer is 42.' = 17 chars -> 5 tokens.
    expect(res.usage).toEqual({ inputTokens: 11, outputTokens: 5 });
  });

  test('expectSystem fails a call whose system prompt lacks an expected text, naming it', async () => {
    const checked = createScriptedModel({ agents: { root: ['a', 'b'] }, expectSystem: { root: [['sy'], ['absent']] } }, 'check.json');
    expect(await checked.complete(call('root', 0))).toMatchObject({ text: 'a' });
    const err = await checked.complete(call('root', 1)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ retryable: false, message: 'scripted: check.json: call 1 of agent "root": the system prompt does not contain "absent"' });
    expect(() => loadScript(scriptFile('bad-expect.json', '{"agents": {"root": []}, "expectSystem": {"root": ["x"]}}'), [dir])).toThrow(/expectSystem must map agent names/);
  });

  test('running out of replies is a non-retryable ScriptExhaustedError', async () => {
    const err = await model.complete(call('counter', 1)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScriptExhaustedError);
    expect(err).toMatchObject({ agent: 'counter', calls: 1, retryable: false });
  });

  test('an agent the script does not name gets a ScriptExhaustedError listing the known agents', async () => {
    const err = await model.complete(call('stranger', 0)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScriptExhaustedError);
    expect((err as Error).message).toMatch(/no replies for agent "stranger" \(agents: root, counter\)/);
    await expect(model.complete(call('toString', 0))).rejects.toBeInstanceOf(ScriptExhaustedError);
  });

  test('a script file is read and validated', () => {
    const file = scriptFile('ok.json', JSON.stringify({ agents: { root: ['hi'] } }));
    expect(loadScript(file, [dir])).toEqual({ agents: { root: ['hi'] } });
  });

  test.each([
    ['bad.json', '{"agents": ', /bad\.json: not valid JSON/],
    ['shape.json', '{"root": ["hi"]}', /shape\.json: expected \{"agents"/],
    ['array.json', '{"agents": {"root": "hi"}}', /array\.json: agents\.root must be an array of strings/],
    ['numbers.json', '{"agents": {"root": [1]}}', /numbers\.json: agents\.root must be an array of strings/],
  ])('%s is rejected with an error naming the file', (name, content, message) => {
    const file = scriptFile(name, content);
    expect(() => loadScript(file, [dir])).toThrow(ProviderError);
    expect(() => loadScript(file, [dir])).toThrow(message);
  });

  test('a missing file is an error naming it', () => {
    expect(() => loadScript(join(dir, 'absent.json'), [dir])).toThrow(/absent\.json: cannot read/);
  });
});

describe('scripted files are read only from the allowed directories', () => {
  const outside = join(top, 'outside.json');
  writeFileSync(outside, JSON.stringify({ agents: { root: ['secret'] } }));
  mkdirSync(join(top, 'scripts-evil'));
  writeFileSync(join(top, 'scripts-evil', 'x.json'), '{"agents": {}}');
  symlinkSync(outside, join(dir, 'link.json'));
  symlinkSync(dir, join(top, 'alias'));

  test.each([
    ['a system file', '/etc/passwd'],
    ['a system file that does not exist (same answer: nothing is probed)', '/etc/no-such-recur-file'],
    ['a path climbing out with ..', join(dir, '..', 'outside.json')],
    ['a directory sharing the allowed one\'s prefix', join(top, 'scripts-evil', 'x.json')],
    ['a symlink inside pointing outside', join(dir, 'link.json')],
    ['the allowed directory itself', dir],
  ])('%s is refused, naming the setting', (_what, path) => {
    expect(() => loadScript(path, [dir])).toThrow(ProviderError);
    expect(() => loadScript(path, [dir])).toThrow(/not under a directory scripted models may read from .*RECUR_SCRIPTED_DIRS/);
  });

  test('with no directory allowed, every script is refused', () => {
    expect(() => loadScript(scriptFile('fine.json', '{"agents": {}}'), [])).toThrow(/may read from \(none\)/);
  });

  test('a file under an allowed directory reached through a symlinked directory is read', () => {
    scriptFile('via-alias.json', JSON.stringify({ agents: { root: ['hi'] } }));
    expect(allowedScriptPath(join(top, 'alias', 'via-alias.json'), [join(top, 'alias')])).toBe(join(dir, 'via-alias.json'));
    expect(loadScript(join(top, 'alias', 'via-alias.json'), [join(top, 'alias')])).toEqual({ agents: { root: ['hi'] } });
  });
});
