import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_TYPES, MAX_EVENT_BYTES, ZERO_HASH, encodeEvent, type RecurEventInput } from '../../schemas';
import { testLogKey } from '../helpers/test-log-key';
import {
  ENVELOPE_LIMITS, FIELD_LIMITS, clipEvent, clipText, previewNamingBlob, type FieldLimit, type LimitTable,
} from '../../schemas/field-limits';

const SCHEMAS = join(__dirname, '..', '..', 'schemas');
const read = (rel: string) => JSON.parse(readFileSync(join(SCHEMAS, rel), 'utf8'));
/** The named types events share (schemas/types), by full name. */
const SHARED = new Map<string, Avro>(readdirSync(join(SCHEMAS, 'types')).map((f) => {
  const schema = read(`types/${f}`) as { name: string };
  return [schema.name, schema as Avro];
}));
const eventSchema = (type: string) => read(`events/${type}.avsc`);

type Avro = string | Avro[] | { type: string; name?: string; fields?: Array<{ name: string; type: Avro; doc?: string }>; items?: Avro; symbols?: string[]; logicalType?: string };
/** The widest character UTF-8 has per UTF-16 unit: 3 bytes for 1 unit. */
const WIDE = '€';

const resolve = (t: Avro): Avro => (typeof t === 'string' && SHARED.has(t) ? SHARED.get(t)! : t);
const nonNull = (t: Avro): Avro => (Array.isArray(t) ? t.find((x) => x !== 'null')! : t);

/** Paths of string leaves that have no numeric limit in `limit`. */
function missing(type: Avro, limit: FieldLimit | undefined, path: string): string[] {
  const t = resolve(nonNull(type));
  if (t === 'string') return typeof limit === 'number' ? [] : [path];
  if (typeof t !== 'object' || Array.isArray(t)) return [];
  if (t.type === 'array') return missing(t.items!, limit && typeof limit === 'object' && 'items' in limit ? limit.of : undefined, `${path}[]`);
  if (t.type === 'record') {
    const fields = limit && typeof limit === 'object' && 'fields' in limit ? limit.fields : undefined;
    return t.fields!.flatMap((f) => missing(f.type, fields?.[f.name], `${path}.${f.name}`));
  }
  return [];
}

/** A value of `type` with every string at its limit and every array full, or (`over`) past both. */
function atLimit(type: Avro, limit: FieldLimit | undefined, over = false): unknown {
  const t = resolve(nonNull(type));
  if (t === 'string') return WIDE.repeat(over ? 2 * (limit as number) + 10 : (limit as number));
  if (t === 'long' || t === 'int' || t === 'double') return 0;
  if (t === 'boolean') return false;
  if (typeof t !== 'object' || Array.isArray(t)) throw new Error(`unhandled type ${JSON.stringify(t)}`);
  if (t.logicalType) return 0;
  if (t.type === 'enum') return t.symbols![0];
  if (t.type === 'array') {
    const l = limit as { items: number; of: FieldLimit };
    return Array.from({ length: l.items + (over ? 3 : 0) }, () => atLimit(t.items!, l.of, over));
  }
  if (t.type === 'record') {
    // A record with no strings (ScaleUpCheck) needs no limits.
    const fields = (limit as { fields: LimitTable } | undefined)?.fields ?? {};
    return Object.fromEntries(t.fields!.map((f) => [f.name, f.name === 'sha256' ? 'a'.repeat(64) : atLimit(f.type, fields[f.name], over)]));
  }
  throw new Error(`unhandled type ${t.type}`);
}

/** Paths of strings longer than their limit and arrays longer than their count. */
function overLimit(value: unknown, limit: FieldLimit, path: string): string[] {
  if (typeof value === 'string') return typeof limit === 'number' && value.length > limit ? [path] : [];
  if (Array.isArray(value) && typeof limit === 'object' && 'items' in limit) {
    return [...(value.length > limit.items ? [path] : []), ...value.flatMap((v, i) => overLimit(v, limit.of, `${path}[${i}]`))];
  }
  if (value && typeof value === 'object' && typeof limit === 'object' && 'fields' in limit) {
    return Object.entries(limit.fields).flatMap(([k, l]) => overLimit((value as Record<string, unknown>)[k], l, `${path}.${k}`));
  }
  return [];
}

const eventAt = (type: string, over = false) =>
  ({ type, ...(atLimit(eventSchema(type), { fields: FIELD_LIMITS[type as keyof typeof FIELD_LIMITS] }, over) as object) }) as RecurEventInput;

/** The longest session id the limits allow: the envelope's other ids are built from it. */
const SESSION = 'a'.repeat(ENVELOPE_LIMITS.sessionId);
/** Sealed, as every appended event is: the seal's bytes count against the limit too. */
const encode = (event: RecurEventInput) =>
  encodeEvent({ sessionId: SESSION, rootId: SESSION, parentId: null, seq: 0, ts: 0, prevHash: ZERO_HASH, traceId: 'f'.repeat(32), spanId: 'f'.repeat(16), event }, testLogKey().signer);

describe('field limits', () => {
  test('every event schema has a limits table and every string field of it a limit', () => {
    const files = readdirSync(join(SCHEMAS, 'events')).filter((f) => f.endsWith('.avsc')).map((f) => f.replace('.avsc', ''));
    expect(Object.keys(FIELD_LIMITS).sort()).toEqual([...files].sort());
    expect([...EVENT_TYPES].sort()).toEqual([...files].sort());
    const gaps = files.flatMap((type) => missing(eventSchema(type), { fields: FIELD_LIMITS[type as keyof typeof FIELD_LIMITS] }, type));
    expect(gaps).toEqual([]);
    expect(missing(read('envelope.avsc'), { fields: ENVELOPE_LIMITS }, 'Envelope')).toEqual([]);
  });

  test('every string field’s doc states its limit', () => {
    const undocumented = Object.keys(FIELD_LIMITS).flatMap((type) =>
      (eventSchema(type).fields as Array<{ name: string; type: Avro; doc: string }>)
        .filter((f) => resolve(nonNull(f.type)) === 'string' && !/limit|\d+ characters|chars/i.test(f.doc))
        .map((f) => `${type}.${f.name}`));
    expect(undocumented).toEqual([]);
  });

  test.each(Object.keys(FIELD_LIMITS))('%s with every field at its limit, in 3-byte characters, encodes under MAX_EVENT_BYTES', (type) => {
    const { value } = encode(eventAt(type));
    expect(value.length).toBeLessThanOrEqual(MAX_EVENT_BYTES);
  });

  test.each(Object.keys(FIELD_LIMITS))('%s with every field past its limit is clipped to encode under MAX_EVENT_BYTES', (type) => {
    const table = { fields: FIELD_LIMITS[type as keyof typeof FIELD_LIMITS] };
    const over = eventAt(type, true);
    const clipped = clipEvent(over);
    expect(overLimit(clipped, table, type)).toEqual([]);
    expect(encode(clipped).value.length).toBeLessThanOrEqual(MAX_EVENT_BYTES);
  });

  test('clipping keeps text that fits, cuts the rest with a note of its length, and is pure', () => {
    const event: RecurEventInput = { type: 'SessionCompleted', answer: 'y'.repeat(600_000), answerBlob: null };
    const clipped = clipEvent(event) as Extract<RecurEventInput, { type: 'SessionCompleted' }>;
    expect(clipped.answer.length).toBeLessThanOrEqual(FIELD_LIMITS.SessionCompleted.answer);
    expect(clipped.answer).toMatch(/^y+…\[cut: 600000 characters, 100000 kept\]$/);
    expect(clipEvent(event)).toEqual(clipped);
    expect(event.answer.length).toBe(600_000);
    expect(clipEvent({ type: 'SessionCompleted', answer: 'ok', answerBlob: null })).toEqual({ type: 'SessionCompleted', answer: 'ok', answerBlob: null });
    expect(clipText('x', 10)).toBe('x');
    // A surrogate pair is never split.
    expect(clipText('a😀b', 2)).toBe('a');
  });

  test('a preview naming its blob stays within the limit and names the blob', () => {
    const blob = { sha256: 'b'.repeat(64), size: 600_000 };
    const text = previewNamingBlob('y'.repeat(20_000), blob, 8_000);
    expect(text.length).toBeLessThanOrEqual(8_000);
    expect(text).toMatch(new RegExp(`\\[cut: the whole is blob ${'b'.repeat(64)} \\(600000 bytes\\)\\]$`));
    expect(previewNamingBlob('short', null, 8_000)).toBe('short');
  });
});
