import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBlobStore, type BlobStore } from '../../activities/blob-store';
import { readContextFiles } from '../../activities/context-files';
import { buildPrompt } from '../../activities/prompt/build-prompt';
import { BASE_SYSTEM_PROMPT } from '../../activities/prompt/system-prompt';
import { encodeEventBatch, ZERO_HASH, type RecurEventInput } from '../../schemas';

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

const events = (extra: RecurEventInput[] = []) => encodeEventBatch({
  sessionId: 'r', rootId: 'r', parentId: null, fromSeq: 0, prevHash: ZERO_HASH,
  events: [{
    type: 'SessionStarted', task: 'fix the test', name: 'root', model: 'scripted:x', parentId: null, depth: 0, maxDepth: 2, maxTurns: 10, cellTimeoutSeconds: 60,
  } as RecurEventInput, ...extra].map((event, i) => ({ ts: 1_700_000_000_000 + i, event })),
}).records;

describe('workspace instruction files in the prompt (AGENTS.md, CLAUDE.md)', () => {
  let ws: string;
  let blobs: BlobStore;
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'ctx-'));
    ws = join(scratch, 'ws');
    mkdirSync(ws);
    blobs = createLocalBlobStore(join(scratch, 'blobs'));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  test('without either file the system prompt is the base prompt alone and nothing is logged', async () => {
    const context = await readContextFiles(ws, 1024, blobs);
    expect(context).toEqual([]);
    expect(buildPrompt(events(), null, context).system).toBe(BASE_SYSTEM_PROMPT);
    expect(await readContextFiles(join(scratch, 'missing'), 1024, blobs)).toEqual([]);
  });

  test('AGENTS.md follows the base prompt, logged by its hash with the shown bytes in the blob store', async () => {
    const text = '# Project rules\nRun `npm test` before you finish.\n';
    writeFileSync(join(ws, 'AGENTS.md'), text);
    const context = await readContextFiles(ws, 1024, blobs);
    expect(context.map((c) => c.file)).toEqual([{ path: 'AGENTS.md', sha256: sha(text), bytes: text.length, shown: { sha256: sha(text), size: text.length } }]);
    expect((await blobs.get(sha(text))).toString('utf8')).toBe(text);
    const { system } = buildPrompt(events(), null, context);
    expect(system.startsWith(BASE_SYSTEM_PROMPT)).toBe(true);
    expect(system.slice(BASE_SYSTEM_PROMPT.length)).toBe(
      `\n\n## Workspace instructions\n\nThe workspace's AGENTS.md, as it is now (re-read before each of your turns). Follow it where it does not conflict with the instructions above.\n\n<file path="AGENTS.md">\n${text}\n</file>`);
  });

  test('with both files AGENTS.md comes first, then CLAUDE.md; before the goal', async () => {
    writeFileSync(join(ws, 'AGENTS.md'), 'agents rules');
    writeFileSync(join(ws, 'CLAUDE.md'), 'claude rules');
    const context = await readContextFiles(ws, 1024, blobs);
    expect(context.map((c) => c.file.path)).toEqual(['AGENTS.md', 'CLAUDE.md']);
    const goal: RecurEventInput = { type: 'GoalChanged', change: 'set', status: 'active', objective: 'green tests', openEnded: false, tokensUsed: 0, secondsUsed: 0, costUsd: 0 };
    const { system } = buildPrompt(events([goal]), null, context);
    const at = (s: string) => system.indexOf(s);
    expect(at("The workspace's AGENTS.md and CLAUDE.md")).toBeGreaterThan(BASE_SYSTEM_PROMPT.length - 1);
    expect(at('agents rules')).toBeLessThan(at('claude rules'));
    expect(at('claude rules')).toBeLessThan(at('<goal>green tests</goal>'));
  });

  test('a CLAUDE.md that is AGENTS.md (a symlink, or the same content) is shown once', async () => {
    writeFileSync(join(ws, 'AGENTS.md'), 'shared rules');
    symlinkSync('AGENTS.md', join(ws, 'CLAUDE.md'));
    expect((await readContextFiles(ws, 1024, blobs)).map((c) => c.file.path)).toEqual(['AGENTS.md']);
  });

  test('a file over the limit is cut on a character boundary with a note; its hash and size are the whole file', async () => {
    const whole = `${'a'.repeat(99)}é${'b'.repeat(200)}`; // é is 2 bytes, at bytes 99..100: a cut at 100 falls inside it
    writeFileSync(join(ws, 'AGENTS.md'), whole);
    const [c] = await readContextFiles(ws, 100, blobs);
    expect(c.file).toMatchObject({ sha256: sha(whole), bytes: Buffer.byteLength(whole), shown: { sha256: sha('a'.repeat(99)), size: 99 } });
    expect(c.text).toBe('a'.repeat(99));
    expect(buildPrompt(events(), null, [c]).system).toContain(
      `${'a'.repeat(99)}\n[AGENTS.md is cut here: shown are its first 99 of 301 bytes; files.read("AGENTS.md") reads the rest]\n</file>`);
  });

  test('an edit shows at the next read, with a new hash', async () => {
    writeFileSync(join(ws, 'AGENTS.md'), 'v1');
    const [first] = await readContextFiles(ws, 1024, blobs);
    writeFileSync(join(ws, 'AGENTS.md'), 'v2');
    const [second] = await readContextFiles(ws, 1024, blobs);
    expect([first.file.sha256, second.file.sha256]).toEqual([sha('v1'), sha('v2')]);
  });

  test('what the agent could plant is not shown: a link out of the workspace, a FIFO, a directory', async () => {
    writeFileSync(join(scratch, 'secret'), 'the signing key');
    symlinkSync(join(scratch, 'secret'), join(ws, 'AGENTS.md'));
    expect(spawnSync('mkfifo', [join(ws, 'CLAUDE.md')]).status).toBe(0);
    expect(await readContextFiles(ws, 1024, blobs)).toEqual([]);
    rmSync(join(ws, 'AGENTS.md'));
    mkdirSync(join(ws, 'AGENTS.md'));
    expect(await readContextFiles(ws, 1024, blobs)).toEqual([]);
  });
});
