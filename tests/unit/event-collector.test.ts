import { EventCollector, type LogRecord } from '../../services/projector';
import { sampleSession } from './event-samples';

let offset = 0;
const rec = (key: string | null, value: Buffer | null, partition = 0): LogRecord => ({
  partition,
  offset: String(offset++),
  key: key === null ? null : Buffer.from(key),
  value,
});

describe('event collector (what the reader keeps from the topic)', () => {
  const root = sampleSession('r1').values;
  const child = sampleSession('r1/helper').values;
  const other = sampleSession('r2').values;

  test('keeps a session tree, drops exact duplicates, sorts each session by seq', () => {
    const c = new EventCollector({ sessionId: 'r1', descendants: true });
    for (const v of child) c.accept(rec('r1/helper', v, 1));
    for (const v of [...root, ...root.slice(2, 4)]) c.accept(rec('r1', v));
    for (const v of other) expect(c.accept(rec('r2', v)).kind).toBe('skipped');
    const result = c.result();
    expect([...result.sessions.keys()]).toEqual(['r1', 'r1/helper']);
    expect(result.events.map((e) => e.eventId).slice(0, 7)).toEqual(['r1/0', 'r1/1', 'r1/2', 'r1/3', 'r1/4', 'r1/5', 'r1/helper/0']);
    expect(result.duplicates).toBe(2);
    expect(result.undecodable).toEqual([]);
  });

  test('without descendants only the session itself is kept', () => {
    const c = new EventCollector({ sessionId: 'r1', descendants: false });
    for (const v of child) expect(c.accept(rec('r1/helper', v)).kind).toBe('skipped');
    c.accept(rec('r1', root[0]));
    expect(c.result().events.map((e) => e.eventId)).toEqual(['r1/0']);
  });

  test('reports garbage, empty values and mis-keyed records with their position, and goes on', () => {
    const c = new EventCollector({ sessionId: 'r1', descendants: true });
    c.accept(rec('r1', root[0], 2));
    const garbage = c.accept({ partition: 2, offset: '41', key: Buffer.from('r1'), value: Buffer.from('garbage') });
    expect(garbage).toEqual({
      kind: 'undecodable',
      record: { partition: 2, offset: '41', key: 'r1', reason: 'not Avro single-object encoded (missing C3 01 header)' },
    });
    c.accept(rec('r1', Buffer.alloc(0)));
    c.accept(rec('r1/helper', root[1]));
    c.accept(rec('r1', root[1]));
    const result = c.result();
    expect(result.undecodable.map((u) => u.reason)).toEqual([
      'not Avro single-object encoded (missing C3 01 header)',
      'empty value',
      'record key "r1/helper" but event r1/1 belongs to r1',
    ]);
    expect(result.events.map((e) => e.eventId)).toEqual(['r1/0', 'r1/1']);
  });

  test('a second record with the same eventId and different bytes is a conflict; the first is kept', () => {
    const c = new EventCollector({ sessionId: 'r1', descendants: true });
    const tampered = Buffer.from(root[5]);
    tampered[tampered.indexOf('forty-two')] = 'F'.charCodeAt(0);
    c.accept(rec('r1', root[5]));
    const accepted = c.accept({ partition: 0, offset: '99', key: Buffer.from('r1'), value: tampered });
    expect(accepted).toMatchObject({ kind: 'conflict', conflict: { eventId: 'r1/5', offset: '99' } });
    expect(c.result().events[0].event).toMatchObject({ answer: 'forty-two' });
  });

  test('keyless records are decoded to decide whether they belong to the scope', () => {
    const c = new EventCollector({ sessionId: 'r1', descendants: true });
    expect(c.accept(rec(null, other[0])).kind).toBe('skipped');
    expect(c.accept(rec(null, root[0])).kind).toBe('undecodable'); // key null, yet the event is r1's
  });
});
