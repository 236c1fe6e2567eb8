import { createHash } from 'node:crypto';
import { Type } from 'avsc';
import { EventLogError } from '../../errors';
import {
  MAX_EVENT_BYTES, SOE_MAGIC, ZERO_HASH, crc64Avro, decodeEvent, encodeEvent, fingerprintBytes, parsingCanonicalForm, type EncodeEventInput,
} from '../../schemas';
import { ENVELOPE_SCHEMA, PAST_ENVELOPE_SCHEMAS } from '../../schemas/generated/schemas';
import { sampleSession } from './event-samples';

const base: EncodeEventInput = {
  sessionId: 'r1/helper',
  rootId: 'r1',
  parentId: 'r1',
  seq: 0,
  ts: 1_700_000_000_123,
  prevHash: ZERO_HASH,
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  event: { type: 'CellExecuted', requestId: 'r1/helper/1', code: 'x', status: 'error', outputs: '', durationMs: 3, errorName: 'NameError' },
};

describe('event codec', () => {
  test('the same input encodes to the same bytes, and decoding gives back the record', () => {
    const a = encodeEvent(base);
    const b = encodeEvent(structuredClone(base));
    expect(a.value.equals(b.value)).toBe(true);
    expect(decodeEvent(a.value)).toEqual(a.record);
    expect(a.record).toMatchObject({ eventId: 'r1/helper/0', ts: base.ts, type: 'CellExecuted', spanId: null });
  });

  test('fields left out take their schema defaults', () => {
    const { record } = encodeEvent(base);
    expect(record.event).toEqual({
      type: 'CellExecuted', requestId: 'r1/helper/1', code: 'x', status: 'error', outputs: '', outputsBlob: null,
      durationMs: 3, executionCount: null, errorName: 'NameError', errorValue: null, traceback: null,
    });
  });

  test('decoded events are deeply frozen plain data', () => {
    const event = decodeEvent(sampleSession().values[1]);
    expect(Object.isFrozen(event)).toBe(true);
    if (event.event.type !== 'ModelCalled') throw new Error('expected ModelCalled');
    expect(Object.isFrozen(event.event.toolCalls[0])).toBe(true);
    expect(Object.getPrototypeOf(event.event.toolCalls[0])).toBe(Object.prototype);
    expect(() => ((event as { seq: number }).seq = 9)).toThrow(TypeError);
  });

  test('hash is SHA-256 of the prevHash bytes and the envelope without its seal, in envelope v1, with hash ""', () => {
    const { record, value } = encodeEvent({ ...base, seq: 4, prevHash: 'ab'.repeat(32) });
    const { keyId: _keyId, signature: _signature, ...envelope } = Type.forSchema(ENVELOPE_SCHEMA as never).fromBuffer(value.subarray(10));
    const v1 = PAST_ENVELOPE_SCHEMAS.v1;
    const header = Buffer.concat([SOE_MAGIC, fingerprintBytes(crc64Avro(parsingCanonicalForm(v1)))]);
    const unhashed = Buffer.concat([header, Type.forSchema(v1 as never).toBuffer({ ...envelope, hash: '' })]);
    const expected = createHash('sha256').update(Buffer.from('ab'.repeat(32), 'hex')).update(unhashed).digest('hex');
    expect(record.hash).toBe(expected);
  });

  test.each([
    ['a wrong parent', { parentId: null }, /parentId must be r1, got null/],
    ['a wrong root', { rootId: 'r2' }, /rootId must be r1, got r2/],
    ['an empty path segment', { sessionId: 'r1//x' }, /invalid session id/],
    ['a fractional seq', { seq: 1.5 }, /seq must be a non-negative integer/],
    ['a bad prevHash', { seq: 1, prevHash: 'abc' }, /prevHash is not 64 lower-case hex digits/],
    ['seq 0 chained to something', { prevHash: 'ab'.repeat(32) }, /seq 0 must have prevHash 0{64}/],
    ['an unknown event type', { event: { type: 'Nope' } }, /unknown event type "Nope"/],
    ['an invalid enum symbol', { event: { ...base.event, status: 'bad' } }, /not a valid recur.events.CellExecuted: status = "bad"/],
    ['an undeclared field', { event: { ...base.event, extra: 1 } }, /not a valid recur.events.CellExecuted/],
    ['an oversized event', { event: { ...base.event, outputs: 'x'.repeat(MAX_EVENT_BYTES) } }, /over the 524288-byte limit/],
  ])('refuses to encode %s', (_what, change, message) => {
    expect(() => encodeEvent({ ...base, ...change } as EncodeEventInput)).toThrow(EventLogError);
    expect(() => encodeEvent({ ...base, ...change } as EncodeEventInput)).toThrow(message);
  });

  test('refuses to decode garbage, a payload of another type, and a non-canonical encoding', () => {
    expect(() => decodeEvent(Buffer.from('not avro at all'))).toThrow(EventLogError);

    const envelopeType = Type.forSchema(ENVELOPE_SCHEMA as never);
    const { values } = sampleSession();
    const header = values[0].subarray(0, 10);
    const started = envelopeType.fromBuffer(values[0].subarray(10));
    const relabelled = Buffer.concat([header, envelopeType.toBuffer({ ...started, type: 'SessionFailed' })]);
    expect(() => decodeEvent(relabelled)).toThrow(/envelope type SessionFailed carries a recur.events.SessionStarted payload/);

    // seq 0 written as the two-byte varint 80 00: the same number, different bytes.
    const prefix = Type.forSchema({
      type: 'record', name: 'Prefix',
      fields: ENVELOPE_SCHEMA_FIELDS.slice(0, 4),
    } as never).toBuffer(started);
    const at = 10 + prefix.length;
    expect(values[0][at]).toBe(0);
    const padded = Buffer.concat([values[0].subarray(0, at), Buffer.from([0x80, 0x00]), values[0].subarray(at + 1)]);
    expect(() => decodeEvent(padded)).toThrow(/r1\/0: envelope is not in canonical Avro encoding/);
  });
});

const ENVELOPE_SCHEMA_FIELDS = (ENVELOPE_SCHEMA as { fields: object[] }).fields;
