import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { StoredEvent } from '../../schemas';
import { logged, untilLogged } from '../helpers/poll-tree-log';
import { py, SessionHarness } from '../helpers/session-harness';

/**
 * A deploy while sessions run: a session tree starts on a worker running the previous release's
 * workflow code (its bundle, tests/fixtures/workflow-bundles; scripts/bundle-release-workflows.mjs
 * makes it), the worker shuts down mid-run as a deploy stops it, and a worker on today's code
 * finishes the tree. Today's code replays every history the old one wrote, so a change that is not
 * replay-safe fails here as a nondeterminism error on the running session.
 */
const FIXTURES = join(__dirname, '..', 'fixtures', 'workflow-bundles');
const previous = {
  code: gunzipSync(readFileSync(join(FIXTURES, 'previous-release.js.gz'))).toString('utf8'),
  release: JSON.parse(readFileSync(join(FIXTURES, 'previous-release.json'), 'utf8')) as { commit: string },
};

const SCRIPT = {
  root: [
    py('a = rlm("count to three slowly", name="counter")\nn = 1'),
    py('va = a.result(timeout=600)\nn += 1'),
    py('final(f"{va}|{n}")'),
  ],
  counter: [
    py('import time\ntotal = 0\nfor i in range(1, 4):\n    total += i\n    time.sleep(0.5)'),
    py('final(str(total))'),
  ],
};

describe('sessions started on the previous release finish on today\'s workflow code', () => {
  const h = new SessionHarness();

  beforeAll(() => h.start({ workflowBundle: { code: previous.code }, identity: `previous-release-${previous.release.commit.slice(0, 12)}` }));
  afterAll(() => h.stop());

  test('a tree running on the old bundle when its worker is stopped completes on a worker of today\'s code, every cell once', async () => {
    const input = h.input(SCRIPT, 'count with a helper');
    const id = input.sessionId;
    const child = `${id}/counter`;
    await h.client.workflow.start('agentSessionWorkflow', { taskQueue: h.taskQueue, workflowId: id, args: [input] });
    // Mid-run: the helper's slow cell has been asked for, and nothing has ended.
    await untilLogged(h.config, id, 'the helper to start its cell on the previous release', (log) => logged(log, child, 'CellRequested'));
    await h.stopWorker();
    await h.startWorker({ identity: 'today' });

    const result = await h.result(id);
    expect(result).toEqual({ status: 'completed', answer: '6|2' });
    const run = await h.read(id, result);
    for (const sid of [id, child]) {
      const cells = run.of('CellExecuted', sid);
      expect(cells.every((c) => c.status === 'ok')).toBe(true);
      // One CellExecuted per cell asked for: none lost at the switch, none run twice.
      expect(new Set(cells.map((c) => c.requestId)).size).toBe(run.of('CellRequested', sid).length);
      expect(cells).toHaveLength(run.of('CellRequested', sid).length);
    }
    const ends = (sid: string) => (run.sessions.get(sid) ?? []).filter((e: StoredEvent) => e.type === 'SessionCompleted');
    expect([ends(id).length, ends(child).length]).toEqual([1, 1]);

    // Both releases ran the tree's workflows: the old one's worker took the first tasks, today's the last.
    for (const workflowId of [id, child]) {
      const { events } = await h.client.workflow.getHandle(workflowId).fetchHistory();
      const workers = (events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes).map((e) => e.workflowTaskCompletedEventAttributes!.identity);
      expect(workers[0]).toMatch(/^previous-release-/);
      expect(workers.at(-1)).toBe('today');
    }
  }, 300_000);
});
