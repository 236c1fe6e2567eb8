import { ZERO_HASH, decodeEvent, encodeEvent, verifyChain, type StoredEvent } from '../../schemas';
import { sampleSession } from './event-samples';

const session = (id = 'r1'): StoredEvent[] => sampleSession(id).values.map((v) => decodeEvent(v));

describe('hash chain verification', () => {
  test('an untouched log verifies, and reports each session head', () => {
    const { records, headHash } = sampleSession();
    expect(verifyChain(records)).toEqual({ ok: true, heads: { r1: { nextSeq: 6, headHash } } });
    expect(records[0].prevHash).toBe(ZERO_HASH);
  });

  test('sessions interleaved in one list are checked independently', () => {
    const root = session('r1');
    const child = session('r1/helper');
    const mixed = root.flatMap((e, i) => [e, child[i]]);
    const verdict = verifyChain(mixed);
    expect(verdict.ok && Object.keys(verdict.heads).sort()).toEqual(['r1', 'r1/helper']);
  });

  test('an edited payload is named as a hash mismatch', () => {
    const events = session();
    const answer = events[5];
    events[5] = { ...answer, event: { type: 'SessionCompleted', answer: 'forty-three', answerBlob: null } };
    expect(verifyChain(events)).toMatchObject({ ok: false, eventId: 'r1/5', fault: 'hash-mismatch' });
  });

  test('one changed byte of a stored record is named as a hash mismatch', () => {
    const { values } = sampleSession();
    const bytes = Buffer.from(values[5]);
    const at = bytes.indexOf('forty-two');
    bytes[at] = 'F'.charCodeAt(0);
    const events = values.map((v) => decodeEvent(v));
    events[5] = decodeEvent(bytes);
    expect(events[5].event).toMatchObject({ answer: 'Forty-two' });
    expect(verifyChain(events)).toMatchObject({ ok: false, eventId: 'r1/5', fault: 'hash-mismatch' });
  });

  test('an edit with a recomputed hash breaks the next link instead', () => {
    const events = session();
    const e = events[2];
    const forged = encodeEvent({ ...e, prevHash: e.prevHash, event: { type: 'CellRequested', cellId: 'cell-1', code: 'import os' } });
    events[2] = forged.record;
    expect(verifyChain(events)).toMatchObject({ ok: false, eventId: 'r1/3', fault: 'prev-hash-mismatch' });
  });

  test('a dropped event is a gap at the next one', () => {
    const events = session();
    events.splice(3, 1);
    expect(verifyChain(events)).toMatchObject({ ok: false, eventId: 'r1/4', fault: 'gap', detail: 'seq 3 is missing before seq 4' });
  });

  test('a dropped first event is a gap too', () => {
    expect(verifyChain(session().slice(1))).toMatchObject({ ok: false, eventId: 'r1/1', fault: 'gap' });
  });

  test('a swapped pair is a reorder', () => {
    const events = session();
    [events[2], events[3]] = [events[3], events[2]];
    expect(verifyChain(events)).toMatchObject({ ok: false, eventId: 'r1/3', fault: 'reorder' });
  });

  test('a repeated event is a duplicate', () => {
    const events = session();
    events.splice(3, 0, events[2]);
    expect(verifyChain(events)).toMatchObject({ ok: false, eventId: 'r1/2', fault: 'duplicate' });
  });
});
