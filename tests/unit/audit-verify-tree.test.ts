import { encodeEvent, verifyChain } from '../../schemas';
import { formatVerdict } from '../../services/cli/commands/audit';
import type { LogRecord } from '../../services/projector';
import { inOrderCollector } from '../../log/in-order-collector';
import { verifyTree } from '../../log/verify-tree';
import { FIXTURE_KEY, chain, ev, records, skewedTree } from '../helpers/replay-tree-fixture';

/** The tree as a topic would hold it: each session's records in its own partition, in log order. */
function topic(t = skewedTree()): LogRecord[] {
  return [
    ...records(t.ids.root, t.root.values),
    ...records(t.ids.a, t.a.values).map((r) => ({ ...r, partition: 1 })),
    ...records(t.ids.b, t.b.values).map((r) => ({ ...r, partition: 2 })),
  ];
}

function audit(treeId: string, log: LogRecord[]) {
  const c = inOrderCollector(treeId);
  for (const r of log) c.accept(r);
  return verifyTree(treeId, c.result(), FIXTURE_KEY.keyring);
}

/** A copy of `record` with `from` replaced by `to` in its bytes (same length keeps it decodable). */
function tampered(value: Buffer, from: string, to: string): Buffer {
  const bytes = Buffer.from(value);
  const at = bytes.indexOf(from);
  if (at < 0 || from.length !== to.length) throw new Error(`cannot tamper ${from}`);
  bytes.write(to, at);
  return bytes;
}

describe('audit verify of a session tree', () => {
  test('an intact tree passes with each session head, and retried copies are not faults', () => {
    const t = skewedTree();
    const log = topic(t);
    const v = audit('r', [...log, log[2], log[7]]);
    expect(v).toMatchObject({ ok: true, events: 12, duplicates: 2, faults: [] });
    const chainHeads = verifyChain([...t.root.records, ...t.a.records, ...t.b.records]);
    expect(chainHeads.ok).toBe(true);
    expect(v.sessions).toEqual(['r', 'r/a', 'r/b'].map((id) => ({
      sessionId: id, events: id === 'r' ? 6 : 3, nextSeq: id === 'r' ? 6 : 3,
      headHash: chainHeads.ok && chainHeads.heads[id].headHash, ended: 'completed',
    })));
    expect(v.signedBy).toEqual({ [FIXTURE_KEY.keyId]: 12 });
    expect(formatVerdict(v)[0]).toBe('verified r: 3 sessions, 12 events (2 retried copies dropped); every chain intact, every event signed by a known key, tree consistent');
  });

  test('an edited copy appended later is a conflict on that event', () => {
    const t = skewedTree();
    const edited = tampered(t.root.values[5], 'all done', 'ALL DONE');
    const v = audit('r', [...topic(t), ...records('r', [edited], 99)]);
    expect(v.ok).toBe(false);
    expect(v.faults).toHaveLength(1);
    expect(v.faults[0]).toMatchObject({ fault: 'conflict', eventId: 'r/5', sessionId: 'r', seq: 5 });
    expect(v.faults[0].detail).toContain('offset 99');
    expect(v.faults[0].detail).toContain('that copy: its content does not hash to its hash field');
  });

  test('an event edited in place is a hash mismatch on it', () => {
    const t = skewedTree();
    const log = topic(t);
    log[5] = { ...log[5], value: tampered(t.root.values[5], 'all done', 'ALL DONE') };
    expect(audit('r', log).faults[0]).toMatchObject({ fault: 'hash-mismatch', eventId: 'r/5' });
  });

  test('an edit with its hash recomputed is unsigned, and breaks the next link', () => {
    const t = skewedTree();
    const e = t.root.records[4];
    const forged = encodeEvent({ ...e, event: { type: 'MessageDelivered', messageId: 'r/a#outcome', from: 'r/a', to: 'r', text: 'forged', via: 'prompt' } });
    const log = topic(t);
    log[4] = { ...log[4], value: forged.value };
    expect(audit('r', log).faults.map((f) => `${f.eventId} ${f.fault}`)).toEqual(['r/4 unsigned', 'r/5 prev-hash-mismatch']);
  });

  test('a dropped event is a gap named at the next one', () => {
    const log = topic().filter((r) => !(r.partition === 0 && r.offset === '2'));
    const v = audit('r', log);
    expect(v.faults[0]).toMatchObject({ fault: 'gap', eventId: 'r/3', detail: 'seq 2 is missing before seq 3' });
  });

  test('a reordered pair is caught in log order, though sorted by seq it would look intact', () => {
    const t = skewedTree();
    const values = [...t.root.values];
    [values[2], values[3]] = [values[3], values[2]];
    const log = [...records('r', values), ...topic(t).filter((r) => r.partition !== 0)];
    expect(audit('r', log).faults[0]).toMatchObject({ fault: 'reorder', eventId: 'r/3' });
    const sorted = [...t.root.records].sort((a, b) => a.seq - b.seq);
    expect(verifyChain(sorted).ok).toBe(true);
  });

  test('undecodable records count only when keyed inside the tree', () => {
    const garbage = Buffer.from('not an event');
    const log = [
      ...topic(),
      { partition: 0, offset: '50', key: null, value: garbage },
      { partition: 3, offset: '0', key: Buffer.from('other'), value: garbage },
    ];
    expect(audit('r', log).ok).toBe(true);
    const v = audit('r', [...log, { partition: 1, offset: '51', key: Buffer.from('r/a'), value: garbage }]);
    expect(v.faults).toEqual([expect.objectContaining({ fault: 'undecodable', eventId: null, sessionId: 'r/a' })]);
    expect(v.faults[0].detail).toMatch(/^partition 1 offset 51: /);
  });

  test('a child its parent never spawned, a second spawn, a second end and a lost child log are tree faults', () => {
    const root = chain('r', [
      [1, ev.started('root', 0)], [2, ev.spawned('r/a')], [3, ev.spawned('r/a')], [4, ev.childDone('r/gone')],
      [5, ev.completed()], [6, ev.completed('again')],
    ]);
    const stray = chain('r/x', [[1, ev.started('x', 1, 'r')]]);
    const v = audit('r', [...records('r', root.values), ...records('r/x', stray.values).map((x) => ({ ...x, partition: 1 }))]);
    expect(v.faults.map((f) => [f.eventId, f.fault])).toEqual([
      ['r/2', 'spawned-twice'], ['r/3', 'missing-child'], ['r/5', 'ended-twice'], ['r/x/0', 'no-spawn'],
    ]);
    expect(v.faults[3].detail).toBe('r has no SubagentSpawned for it');
  });

  test('a subtree audit does not ask for the spawn of its own root, and an empty tree fails', () => {
    const t = skewedTree();
    expect(audit('r/a', topic(t))).toMatchObject({ ok: true, events: 3 });
    expect(audit('nobody', topic(t))).toMatchObject({ ok: false, faults: [{ fault: 'no-events', sessionId: 'nobody' }] });
  });

  test('the first fault is the lowest session id, then the lowest seq, and all are listed', () => {
    const t = skewedTree();
    const log = topic(t).filter((r) => !(r.partition === 2 && r.offset === '1')); // r/b loses seq 1
    log.push(...records('r', [tampered(t.root.values[4], 'hello', 'HELLO')], 60));
    const v = audit('r', log);
    expect(v.faults.map((f) => `${f.eventId} ${f.fault}`)).toEqual(['r/4 conflict', 'r/b/2 gap']);
    const lines = formatVerdict(v);
    expect(lines[0]).toBe('FAILED r: 2 faults in 3 sessions, 11 events');
    expect(lines[1]).toMatch(/^ {2}r\/4 {2}conflict: /);
  });
});
