import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recur } from '../helpers/run-cli';
import { py, scriptsDir } from '../helpers/session-harness';

const dir = scriptsDir();

function script(name: string, agents: Record<string, string[]>): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ agents }));
  return `scripted:${file}`;
}

describe('recur CLI against the running daemon and worker', () => {
  it('run --json streams every event of the tree and ends with the root SessionCompleted carrying the answer', async () => {
    const model = script('ok', {
      root: [py('h = rlm("double 21", name="kid")\nv = h.result()'), py('final(f"kid said {v}")')],
      kid: [py('final(21 * 2)')],
    });
    const { code, lines } = await recur(['run', 'delegate a doubling', '--model', model, '--json']);
    expect(code).toBe(0);
    const events = lines.map((l) => JSON.parse(l));
    const last = events[events.length - 1];
    expect(last).toMatchObject({ type: 'SessionCompleted', event: { answer: 'kid said 42' } });
    expect(last.sessionId).not.toContain('/');
    const kid = `${last.sessionId}/kid`;
    expect(events.filter((e) => e.sessionId === kid).map((e) => e.type))
      .toEqual(['SessionStarted', 'ModelCalled', 'CellRequested', 'CellExecuted', 'SessionCompleted']);
    for (const sid of [last.sessionId, kid]) {
      const seqs = events.filter((e) => e.sessionId === sid).map((e) => e.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i));
    }
  });

  it('exits 1 with SessionFailed as the last line when the session fails', async () => {
    const { code, lines } = await recur(['run', 'fail', '--model', script('fail', { root: [py('x = 1')] }), '--json']);
    expect(code).toBe(1);
    expect(JSON.parse(lines[lines.length - 1])).toMatchObject({ type: 'SessionFailed', event: { kind: 'script_exhausted' } });
  });

  it('detaches on Ctrl-C without stopping the session; attach resumes where the client left off; send reaches the agent', async () => {
    const model = script('wait', {
      root: [py('m = agent_message.recv(timeout=120)\nprint(m["from"], m["text"])'), 'got it'],
    });
    let id = '';
    const first = await recur(['run', 'wait for the user', '--model', model, '--json'], {
      onLine: (line, send) => {
        const e = JSON.parse(line);
        id = e.sessionId;
        if (e.type === 'CellRequested') send('SIGINT');
      },
    });
    expect(first.code).toBe(130);
    const seen = first.lines.map((l) => JSON.parse(l).seq);
    expect(seen).toEqual([0, 1, 2]);

    const sent = await recur(['send', id, 'hello from the user']);
    expect(sent.code).toBe(0);
    const second = await recur(['attach', id, '--json']);
    expect(second.code).toBe(0);
    const rest = second.lines.map((l) => JSON.parse(l));
    expect(rest[0].seq).toBe(3);
    const cell = rest.find((e) => e.type === 'CellExecuted');
    expect(cell.event.outputs).toBe('user hello from the user');
    expect(rest[rest.length - 1]).toMatchObject({ type: 'SessionCompleted', event: { answer: 'got it' } });
  });

  it('ls lists a running session, logs prints its tree so far, kill ends it with SessionFailed(cancelled)', async () => {
    const model = script('kill', { root: [py('agent_message.recv(timeout=600)'), 'never'] });
    const started = await recur(['run', 'wait to be killed', '--model', model, '--detach']);
    expect(started.code).toBe(0);
    const id = started.lines[0].trim();
    const ls = await recur(['ls', '--json']);
    expect(ls.code).toBe(0);
    expect(JSON.parse(ls.lines.join('\n')).sessions).toEqual(
      expect.arrayContaining([expect.objectContaining({ sessionId: id, status: 'running' })]));

    const killed = await recur(['kill', id]);
    expect(killed.code).toBe(0);
    const attached = await recur(['attach', id, '--json']);
    expect(attached.code).toBe(1);
    const last = JSON.parse(attached.lines[attached.lines.length - 1]);
    expect(last).toMatchObject({ sessionId: id, type: 'SessionFailed', event: { kind: 'cancelled' } });

    const logs = await recur(['logs', id, '--json']);
    expect(logs.code).toBe(0);
    expect(logs.lines.map((l) => JSON.parse(l).type)).toEqual(
      ['SessionStarted', 'ModelCalled', 'CellRequested', 'CellExecuted', 'SessionFailed']);
  });
});
