import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../config';
import type { StoredEvent } from '../../schemas';
import { kafkaClient } from '../../config/connections';
import { readSessionLog } from '../../services/projector';
import { cliInProcess } from '../helpers/cli-in-process';
import { recur } from '../helpers/run-cli';
import { py, scriptsDir } from '../helpers/session-harness';

const dir = scriptsDir();
const config = loadConfig();

function script(name: string, root: string[], others: Record<string, string[]> = {}): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ agents: { root, ...others } }));
  return `scripted:${file}`;
}

async function ownLog(sessionId: string): Promise<StoredEvent[]> {
  const kafka = kafkaClient(config, 'reader', 'fork-test');
  return [...(await readSessionLog({ kafka, topic: config.kafka.topic, sessionId, descendants: false })).events];
}

const events = (lines: string[]) => lines.map((l) => JSON.parse(l) as StoredEvent);

describe('recur fork on the running daemon and worker', () => {
  it("forks after a snapshot and before later cells: the fork's kernel holds the values as of that event, its log says where it came from, the original is untouched", async () => {
    // Snapshots every 3 cells (the default): one after x = 3, none between the fork point and it but the replay of x = 4.
    const origin = script('origin', [py('x = 1'), py('x = 2'), py('x = 3'), py('x = 4'), py('x = 5\nlater = True'), 'origin done']);
    const ran = await recur(['run', 'count up', '--model', origin, '--json']);
    expect(ran.code).toBe(0);
    const id = events(ran.lines)[0].sessionId;
    const before = await ownLog(id);
    const snapshot = before.find((e) => e.type === 'KernelSnapshotted')!;
    const four = before.find((e) => e.event.type === 'CellExecuted' && e.event.code === 'x = 4')!;
    expect(snapshot.seq).toBeLessThan(four.seq);
    expect(before.some((e) => e.event.type === 'CellExecuted' && e.event.code.startsWith('x = 5') && e.seq > four.seq)).toBe(true);

    // Turns 0-3 asked for the four cells up to the fork point: the fork's first call is call 4.
    const forked = script('forked', ['-', '-', '-', '-', py('print(x, "later" in globals())'), 'fork done']);
    const run = await recur(['fork', id, '--at', String(four.seq), 'print x', '--model', forked, '--json']);
    expect(run.code).toBe(0);
    const fork = run.lines.map((l) => JSON.parse(l) as StoredEvent);
    const forkId = fork[0].sessionId;
    expect(forkId).not.toBe(id);
    expect(fork.at(-1)).toMatchObject({ type: 'SessionCompleted', event: { answer: 'fork done' } });

    const log = await ownLog(forkId);
    // The copy: the same facts at the same seqs and times, its own chain, its ids rewritten.
    expect(log.slice(0, four.seq + 1).map((e) => [e.seq, e.type, e.ts])).toEqual(before.slice(0, four.seq + 1).map((e) => [e.seq, e.type, e.ts]));
    expect(log[four.seq].event).toMatchObject({ type: 'CellExecuted', requestId: `${forkId}/${four.seq - 1}`, code: 'x = 4' });
    expect(log[four.seq].hash).not.toBe(four.hash);
    expect(log[four.seq + 1].event).toEqual(expect.objectContaining({
      type: 'ForkedFrom', originSessionId: id, originSeq: four.seq, originHash: four.hash, snapshotSeq: snapshot.seq, children: [],
    }));
    const after = log.slice(four.seq + 1);
    expect(after.find((e) => e.type === 'MessageDelivered')?.event).toMatchObject({ from: 'user', via: 'prompt', text: 'print x' });
    expect(after.find((e) => e.type === 'ModelCalled')?.event).toMatchObject({ turn: 4 });
    expect(after.find((e) => e.type === 'KernelRestored')?.event).toMatchObject({ fromSnapshotSeq: snapshot.event.type === 'KernelSnapshotted' && snapshot.event.coversSeq, replayedCells: [`${forkId}/${four.seq - 1}`] });
    const cell = after.find((e) => e.type === 'CellExecuted')!.event;
    expect(cell).toMatchObject({ status: 'ok' });
    expect(cell.type === 'CellExecuted' && cell.outputs).toMatch(/^\[your kernel has been restored to its state at the fork point: \d+ variable\(s\) from the snapshot at #\d+, 1 later cell\(s\) re-run\]\n4 False$/);

    // The original: not one record more, not one byte changed.
    expect((await ownLog(id)).map((e) => e.hash)).toEqual(before.map((e) => e.hash));

    const audit = await cliInProcess(['audit', 'verify', forkId]);
    expect({ code: audit.code, message: audit.message }).toEqual({ code: 0, message: '' });
    const replay = await cliInProcess(['replay', forkId, '--verify']);
    expect({ code: replay.code, message: replay.message }).toEqual({ code: 0, message: '' });
    expect(replay.out.at(-1)).toBe('replayed 5 cells: 5 same, 0 differ, 0 not replayable (host call), 0 skipped, 0 unchecked');
  });

  it("leaves the origin's sub-agents behind: the fork names them, restores what the snapshot held of them, and audits clean", async () => {
    const origin = script('parent', [py('h = rlm("double 21", name="kid")\nv = h.result()'), py('w = 1'), py('w = 2'), 'parent done'], { kid: [py('final(21 * 2)')] });
    const ran = await recur(['run', 'delegate', '--model', origin, '--json']);
    expect(ran.code).toBe(0);
    const id = events(ran.lines)[0].sessionId;
    const before = await ownLog(id);
    const snapshot = before.find((e) => e.type === 'KernelSnapshotted')!;

    const forked = script('orphan', ['-', '-', '-', py('print(v, w)'), 'fork done']);
    const run = await recur(['fork', id, '--at', String(snapshot.seq), '--model', forked, '--json']);
    expect(run.code).toBe(0);
    const forkId = events(run.lines)[0].sessionId;
    const log = await ownLog(forkId);
    expect(log[snapshot.seq + 1].event).toMatchObject({ type: 'ForkedFrom', snapshotSeq: snapshot.seq, children: [`${id}/kid`] });
    const cell = log.slice(snapshot.seq + 1).find((e) => e.type === 'CellExecuted')!.event;
    expect(cell.type === 'CellExecuted' && cell.outputs).toMatch(/\n42 2$/);
    // The fork's tree is the fork alone: no session of it under the origin's id.
    expect(events(run.lines).every((e) => e.sessionId === forkId)).toBe(true);
    const audit = await cliInProcess(['audit', 'verify', forkId]);
    expect({ code: audit.code, message: audit.message }).toEqual({ code: 0, message: '' });
  });

  it('refuses an unknown session, a seq out of range and one inside a step, naming what is valid', async () => {
    const missing = await recur(['fork', 'rnosuchsession', '--at', '0', '--detach']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('no session rnosuchsession in the log');
    const ran = await recur(['run', 'one cell', '--model', script('short', [py('y = 1'), 'short done']), '--json']);
    const id = events(ran.lines)[0].sessionId;
    const log = await ownLog(id);
    const end = log.findIndex((e) => e.type === 'SessionCompleted');
    const out = await recur(['fork', id, '--at', String(end), '--detach']);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain(`at must be a seq of ${id} in 0..${end - 1}`);
    const request = log.find((e) => e.type === 'CellRequested')!;
    const mid = await recur(['fork', id, '--at', String(request.seq), '--detach']);
    expect(mid.stderr).toContain(`seq ${request.seq} of ${id} falls inside a step`);
  });
});
