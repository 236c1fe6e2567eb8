import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createLocalBlobStore } from '../../activities/blob-store';
import { stackPaths } from '../../config/home-paths';
import { createKernelHost } from '../../services/sandbox';
import { cliInProcess } from '../helpers/cli-in-process';
import { SessionHarness, py } from '../helpers/session-harness';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const RULES_V1 = '# Rules v1\nChange code with files.edit.\n';
const RULES_V2 = '# Rules v2\nAlways run the tests.\n';
const CALC = 'def add(a, b):\n    return a - b\n\ndef sub(a, b):\n    return a - b\n';

/** A git work tree at the session's workspace; the kernel runs as a uid of its own, so everything is writable to all. */
function workspaceRepo(workspace: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(workspace, rel)), { recursive: true });
    writeFileSync(join(workspace, rel), content);
  }
  expect(spawnSync('git', ['init', '-q'], { cwd: workspace }).status).toBe(0);
  // Only git reads .git/info/exclude: logo.png (untracked) missing from the tree shows git listed the files inside the sandbox.
  writeFileSync(join(workspace, '.git', 'info', 'exclude'), 'logo.png\n');
  expect(spawnSync('git', ['add', '-A'], { cwd: workspace }).status).toBe(0);
  expect(spawnSync('chmod', ['-R', 'a+rwX', workspace]).status).toBe(0);
}

async function replayLines(id: string): Promise<string[]> {
  const r = await cliInProcess(['replay', id]);
  expect(r.code).toBe(0);
  return r.out;
}

describe('files helpers and AGENTS.md in a real session (real kernel, sandbox, Kafka, Temporal; scripted model)', () => {
  const h = new SessionHarness();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it("edits the workspace with files.*, sees AGENTS.md after the base prompt at each call, and logs each version's hash", async () => {
    const agents = {
      root: [
        py(`
print(files.tree())
print(files.search(r"def \\w+", glob="*.py"))
try:
    files.edit("src/calc.py", "return a - b", "return a + b")
except ValueError as e:
    print("refused:", e)
files.edit("src/calc.py", "def add(a, b):\\n    return a - b", "def add(a, b):\\n    return a + b")
print(files.read("src/calc.py", 1, 2), end="")
try:
    files.read("logo.png")
except ValueError as e:
    print("refused:", e)
files.write("AGENTS.md", ${JSON.stringify(RULES_V2)})`),
        'done',
      ],
    };
    const input = h.input(agents, 'fix add');
    // The scripted model fails the call unless its system prompt has these: the base prompt, the files' section with the
    // file as it is at that call (the section follows the harness, which follows the base prompt: build-prompt.ts).
    const base = 'do not redo work whose result you already have.\n\n';
    const section = '\n\n## Workspace instructions';
    const script = input.model.slice('scripted:'.length);
    writeFileSync(script, JSON.stringify({ agents, expectSystem: { root: [[base, section, RULES_V1], [base, section, RULES_V2]] } }));
    const workspace = createKernelHost(h.config).place(input.sessionId).workspace;
    workspaceRepo(workspace, {
      'AGENTS.md': RULES_V1, '.gitignore': 'build/\n', 'src/calc.py': CALC, 'build/calc.py': CALC, 'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]),
    });

    const run = await h.runInput(input);
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    const [cell] = run.of('CellExecuted');
    expect({ status: cell.status, outputs: cell.outputs }).toEqual({
      status: 'ok',
      outputs: [
        '.gitignore', 'AGENTS.md', 'src/', '  calc.py',
        'src/calc.py:1: def add(a, b):', 'src/calc.py:4: def sub(a, b):',
        "refused: files.edit: old occurs 2 times in 'src/calc.py', not exactly once; include more surrounding text so exactly one matches",
        'def add(a, b):', '    return a + b',
        "refused: files.read: 'logo.png' is a binary file (not UTF-8 text); files.read works on text only",
      ].join('\n'),
    });
    expect(readFileSync(join(workspace, 'src', 'calc.py'), 'utf8')).toBe(CALC.replace('return a - b', 'return a + b'));

    const [first, second] = run.of('ModelCalled').map((m) => m.contextFiles);
    expect(first).toEqual([{ path: 'AGENTS.md', sha256: sha(RULES_V1), bytes: RULES_V1.length, shown: { sha256: sha(RULES_V1), size: RULES_V1.length } }]);
    expect(second).toEqual([{ path: 'AGENTS.md', sha256: sha(RULES_V2), bytes: RULES_V2.length, shown: { sha256: sha(RULES_V2), size: RULES_V2.length } }]);
    // What the prompt showed is in the blob store, so an auditor rebuilds it from the log, not from the (edited) disk.
    expect((await createLocalBlobStore(stackPaths(h.config).blobs).get(sha(RULES_V1))).toString('utf8')).toBe(RULES_V1);

    const lines = await replayLines(run.id);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`prompt ← AGENTS\\.md sha256:${sha(RULES_V1).slice(0, 16)} \\(${RULES_V1.length} bytes\\), task #0$`)));
    const reply = run.sessions.get(run.id)!.find((e) => e.type === 'ModelCalled')!.seq;
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`prompt ← AGENTS\\.md sha256:${sha(RULES_V2).slice(0, 16)} \\(${RULES_V2.length} bytes\\), reply #${reply}`)));
  });
});
