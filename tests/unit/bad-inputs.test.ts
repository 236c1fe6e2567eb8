/* Bad inputs of docs/bad-inputs.md that no other unit test covers: each gets a clear error naming what is wrong. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRefineReply } from '../../activities/harness/refine-prompt';
import { parseConfig } from '../../config';
import { ExitError } from '../../errors';
import { runCli } from '../../services/cli/cli';

describe('bad configuration files', () => {
  const home = () => mkdtempSync(join(tmpdir(), 'recur-badcfg-'));

  test('a config.json that is not JSON is an error naming the file, and the rest still loads', () => {
    const h = home();
    writeFileSync(join(h, 'config.json'), '{"agent": {"maxTurns": 3,');
    const { config, errors } = parseConfig({ RECUR_HOME: h, RECUR_MAX_TURNS: '7' });
    expect(errors).toEqual([expect.stringMatching(new RegExp(`^${join(h, 'config.json')}: .*JSON`))]);
    expect(config.agent.maxTurns).toBe(7);
  });

  test.each([
    ['a number as text', { agent: { maxTurns: 'ten' } }, /agent\.maxTurns must be a number/],
    ['a section that is not an object', { ports: 5 }, /expected an object at ports/],
    ['a top level that is an array', [1], /expected an object at top level/],
  ])('a config.json with %s is an error naming the key', (_what, json, message) => {
    const h = home();
    writeFileSync(join(h, 'config.json'), JSON.stringify(json));
    expect(parseConfig({ RECUR_HOME: h }).errors).toEqual([expect.stringMatching(message)]);
  });
});

describe('bad refiner replies', () => {
  test('a reply with no JSON object, or broken JSON, is a SyntaxError quoting the reply', () => {
    expect(() => parseRefineReply('I would not change anything.')).toThrow(/holds no JSON object: I would not change anything/);
    expect(() => parseRefineReply('{"summary": "s", "edits": [}')).toThrow(/is not valid JSON/);
  });
});

describe('bad command lines', () => {
  const cli = (...argv: string[]) => runCli(argv, { out: () => undefined, err: () => undefined });

  test('an unknown flag is exit 2 with the usage', async () => {
    const err = await cli('logs', 'r1', '--jsn').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExitError);
    expect(err).toMatchObject({ code: 2, message: expect.stringMatching(/Unknown option '--jsn'[\s\S]*usage: recur logs <session-id>/) });
  });

  test('a missing or extra argument is exit 2 with the usage', async () => {
    await expect(cli('logs')).rejects.toMatchObject({ code: 2, message: expect.stringMatching(/usage: recur logs/) });
    await expect(cli('attach', 'r1', 'r2')).rejects.toMatchObject({ code: 2, message: expect.stringMatching(/usage: recur attach/) });
  });
});
