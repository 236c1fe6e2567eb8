import { existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../config';
import type { StartSessionReply } from '../../services/daemon/api-types';
import { connectDaemon } from '../../services/cli/daemon-client';
import { OPERATOR_INTERRUPT_NOTE } from '../../workflows/operator-handlers';
import { logged, until, untilLogged } from '../helpers/poll-tree-log';
import { recur } from '../helpers/run-cli';
import { py, scriptsDir } from '../helpers/session-harness';

/*
 * A root the daemon started stays open after its answer: a follow-up is a new round in the same
 * kernel, even after the idle root was unloaded; an operator interrupts a cell without ending the
 * session; kill ends it for good. Real daemon, worker, Kafka, Temporal and sandboxed kernels.
 */
jest.setTimeout(300_000);

test('run, answer, unload, follow-up over the same variables, interrupt a long cell, go on, kill', async () => {
  const config = loadConfig();
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'recur-continue-')));
  const script = join(scriptsDir(config), 'continue.json');
  writeFileSync(script, JSON.stringify({
    agents: {
      root: [
        py('x = 41'), py('final("first")'),
        // Round 1, after the unload: x comes back from the snapshot.
        py('final(str(x + 1))'),
        // Round 2: a cell that would outlast the test, interrupted; the model then reads the note.
        py('import time\nopen("sleeping", "w").close()\ntime.sleep(600)'), 'carried on',
      ],
    },
  }));
  // Through the API, to give the root a short idle limit; attach follows it as `recur run` would.
  const daemon = connectDaemon(config);
  const { sessionId: id } = await daemon.post<StartSessionReply>('/v1/sessions', {
    task: 'keep x', model: `scripted:${script}`, cwd: work, limits: { idleUnloadSeconds: 2 },
  });
  const first = await recur(['attach', id, '--json']);
  expect(first.code).toBe(0);
  expect(JSON.parse(first.lines.at(-1)!)).toMatchObject({ sessionId: id, type: 'SessionCompleted', event: { answer: 'first' } });

  await untilLogged(config, id, 'the idle root to unload', (log) => logged(log, id, 'SessionUnloaded'));
  // Listings are eventually consistent: the memo the workflow set after its unload shows up in time.
  const row = await until('ls to show the root unloaded', async () => (await recur(['ls'])).lines.find((l) => new RegExp(`^${id}\\s+unloaded\\s`).test(l)));
  expect(row).toMatch(/\s-$/);
  const ls = await recur(['ls', '--json']);
  expect(JSON.parse(ls.lines.join('\n')).sessions).toEqual(expect.arrayContaining([expect.objectContaining({ sessionId: id, status: 'running', phase: 'unloaded' })]));

  const second = await recur(['send', id, 'and one more?', '--wait']);
  expect(second.stderr).toContain('waiting for the answer');
  expect(second.code).toBe(0);
  expect(second.lines.at(-1)).toBe('42');

  // Round 2: interrupt the sleeping cell once it runs (it says so on disk), then the session goes on.
  const third = recur(['send', id, 'now sleep', '--wait', '--json']);
  await until('the cell to start sleeping', async () => (existsSync(join(work, 'sleeping')) ? true : undefined));
  const interrupted = await recur(['interrupt', id, '--json']);
  expect(JSON.parse(interrupted.lines[0])).toEqual({ sessionId: id, interrupted: true });
  const answered = await third;
  expect(answered.code).toBe(0);
  const round2 = answered.lines.map((l) => JSON.parse(l));
  const cell = round2.find((e) => e.type === 'CellExecuted');
  expect(cell.event).toMatchObject({ status: 'interrupted', errorName: 'KeyboardInterrupt' });
  expect(cell.event.outputs).toContain(OPERATOR_INTERRUPT_NOTE);
  expect(round2.at(-1)).toMatchObject({ type: 'TaskEnded', event: { round: 2, status: 'completed', answer: 'carried on' } });
  expect((await recur(['interrupt', id])).lines[0]).toBe(`no cell of ${id} was running; nothing interrupted`);

  expect((await recur(['kill', id])).code).toBe(0);
  const log = await untilLogged(config, id, 'the root to close', (l) => logged(l, id, 'SessionClosed'));
  const events = log.sessions.get(id)!;
  // In this order, whether or not the root unloaded again between rounds 1 and 2 (its idle limit is 2 s).
  const at = (type: string, from = 0) => events.findIndex((e, i) => i >= from && e.type === type);
  const order = ['SessionCompleted', 'SessionUnloaded', 'SessionReloaded', 'SessionResumed', 'KernelRestored', 'TaskEnded', 'SessionResumed', 'TaskEnded', 'SessionClosed']
    .reduce<number[]>((seen, type) => [...seen, at(type, (seen.at(-1) ?? -1) + 1)], []);
  expect(order.every((i) => i >= 0)).toBe(true);
  expect(order.at(-1)).toBe(events.length - 1);
  expect(events.filter((e) => e.type === 'SessionResumed').map((e) => e.event)).toEqual([
    expect.objectContaining({ from: 'user', round: 1, unloaded: true }), expect.objectContaining({ from: 'user', round: 2 }),
  ]);
  expect(events.at(-1)!.event).toMatchObject({ type: 'SessionClosed', round: 2, idle: true });

  // A follower tells the ended root from an idle one: attach stops at SessionClosed, exit 1; ls says it was cancelled.
  const after = await recur(['attach', id, '--json']);
  expect(after.code).toBe(1);
  expect(JSON.parse(after.lines.at(-1)!)).toMatchObject({ type: 'SessionClosed' });
  const listed = JSON.parse((await recur(['ls', '--json'])).lines.join('\n')).sessions;
  expect(listed).toEqual(expect.arrayContaining([expect.objectContaining({ sessionId: id, status: 'cancelled' })]));
  await expect(daemon.post(`/v1/sessions/${id}/messages`, { text: 'too late' })).rejects.toThrow(/no running session/);
});
