import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../services/cli/cli';
import { stackPaths } from '../../config/home-paths';
import { repoRoot } from '../../services/home/repo-root';
import { sandboxKey, sandboxRoot } from '../../services/sandbox';
import { SessionHarness, py, type SessionRun } from '../helpers/session-harness';
import { TEST_SECRET } from '../helpers/test-stack';
import { ESCAPES, attemptOutputs, escapeCells } from '../helpers/escape-attempts';

/**
 * The agent is untrusted: from ordinary cells of a real session (real Jupyter, Kafka, Temporal,
 * scripted model), each escape the containment issue lists is really tried. Every attempt must
 * fail inside the cell with an error, the session must complete, and the audit must pass.
 *
 * Each cell prints `BLOCKED <what stopped it>` per attempt, or `ESCAPED <what it got>`.
 */
const MIB = 2 ** 20;
const SECRET_ENV = `recur-test-provider-key-${process.pid}`;

describe('a sandboxed kernel cannot escape (adversarial cells, real stack)', () => {
  // Small limits, so hitting each is quick; the defaults are sized for real work.
  const h = new SessionHarness({
    RECUR_SANDBOX_MEMORY_MIB: '1024', RECUR_SANDBOX_MAX_PROCESSES: '64', RECUR_SANDBOX_MAX_OPEN_FILES: '256', RECUR_SANDBOX_MAX_FILE_MIB: '1',
  });
  let victim: SessionRun;
  let run: SessionRun;
  let outputs: Map<number, string>;

  beforeAll(async () => {
    // The worker's own environment holds provider keys; this one is the marker to look for.
    process.env.RECUR_TEST_PROVIDER_KEY = SECRET_ENV;
    await h.start();
    victim = await h.run({ root: [py('open("notes.txt", "w").write("victim data")\nprint(open("notes.txt").read())'), py('final("ok")')] }, 'victim');
    const home = h.config.home;
    const paths = {
      home,
      repo: repoRoot(),
      venv: stackPaths(h.config).venv,
      worker_pid: process.pid,
      secrets: [SECRET_ENV, TEST_SECRET],
      ports: h.config.ports,
      victim_dir: join(sandboxRoot(h.config), sandboxKey(victim.id)),
      victim_workspace: join(home, 'workspaces', sandboxKey(victim.id)),
      victim_id: victim.id,
    };
    run = await h.run({ root: [...escapeCells(paths), py('final("contained")')] }, 'try every escape');
    outputs = attemptOutputs(run.of('CellExecuted').map((c) => c.outputs));
  }, 300_000);
  afterAll(async () => {
    delete process.env.RECUR_TEST_PROVIDER_KEY;
    await h.stop();
  });

  test.each(ESCAPES.map(([name, , expected], i) => [name, i, expected] as const))('%s', (_name, i, expected) => {
    const out = outputs.get(i);
    if (out === undefined) throw new Error(`no output for attempt #${i}`);
    expect(out).not.toMatch(/ESCAPED/);
    for (const line of expected) expect(out).toContain(line);
  });

  test('the session completes after every attempt, and the audit of its log passes', async () => {
    expect(victim.result).toMatchObject({ status: 'completed', answer: 'ok' });
    expect(run.result).toEqual({ status: 'completed', answer: 'contained' });
    expect(run.of('CellExecuted')).toHaveLength(ESCAPES.length + 1);
    const out: string[] = [];
    const code = await runCli(['audit', 'verify', run.id, '--json'], { out: (l) => out.push(l), err: () => undefined });
    expect(code).toBe(0);
    expect(JSON.parse(out.join('\n'))).toMatchObject({ ok: true });
  });

  test('what the cells tried to destroy is still there', () => {
    expect(existsSync(stackPaths(h.config).kafkaData)).toBe(true);
    expect(existsSync(join(h.config.home, 'workspaces', sandboxKey(victim.id), 'notes.txt'))).toBe(true);
  });

  test('SessionStarted records the sandbox and its limits', () => {
    const [started] = run.of('SessionStarted');
    expect(started.sandbox).toEqual({ mode: 'on', memoryBytes: 1024 * MIB, processes: 64, openFiles: 256, fileBytes: MIB, net: 'none' });
  });
});
