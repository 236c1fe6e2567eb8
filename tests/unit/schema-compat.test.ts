import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from 'avsc';
import { ZERO_HASH, decodeEvent, encodeSingleObject, type EventType } from '../../schemas';
import { ENVELOPE_SCHEMA, EVENT_SCHEMA_HISTORY, EVENT_SCHEMAS, PAST_ENVELOPE_SCHEMAS } from '../../schemas/generated/schemas';
import { CHAINED_ENVELOPE } from '../../schemas/registry';
import { createHash } from 'node:crypto';

/**
 * What a schema registry would enforce with transitive full compatibility: every version of an
 * event's schema reads records of every other (older readers newer records, newer readers older
 * ones), and the encoded fixture of each version (scripts/gen-event-fixtures.mjs) still decodes.
 */
const FIXTURES = join(__dirname, '..', 'fixtures', 'events');

/** Each type's schema versions, oldest first (schemas/history, then the current one). */
const VERSIONS: Array<[string, object[]]> = Object.entries(EVENT_SCHEMAS).map(([type, current]) => [type, [...(EVENT_SCHEMA_HISTORY[type as EventType] ?? []), current]]);

/** Every pair of versions that cannot read each other's records, both ways: `reader <- writer: why`. */
function incompatible(versions: readonly object[]): string[] {
  const types = versions.map((s) => Type.forSchema(s as never));
  const problems: string[] = [];
  types.forEach((reader, r) => types.forEach((writer, w) => {
    if (r === w) return;
    try {
      reader.createResolver(writer);
    } catch (err) {
      problems.push(`v${r + 1} <- v${w + 1}: ${(err as Error).message}`);
    }
  }));
  return problems;
}

/** Enums (at any depth) without a default: a reader that meets a symbol it does not know can only fail. */
function enumsWithoutDefault(schema: unknown, out: string[] = []): string[] {
  if (Array.isArray(schema)) schema.forEach((s) => enumsWithoutDefault(s, out));
  else if (schema && typeof schema === 'object') {
    const s = schema as Record<string, unknown>;
    if (s.type === 'enum' && !('default' in s)) out.push(String(s.name));
    Object.values(s).forEach((v) => enumsWithoutDefault(v, out));
  }
  return out;
}

/** A record around `payload` in the chained envelope, as a writer before signing put it on the topic. */
function recordOf(type: string, payload: Buffer): Buffer {
  const envelope = { eventId: 'fx/0', sessionId: 'fx', rootId: 'fx', parentId: null, seq: 0, ts: 1_700_000_000_000, type, prevHash: ZERO_HASH, payload };
  const unhashed = encodeSingleObject(CHAINED_ENVELOPE, { ...envelope, hash: '' });
  const hash = createHash('sha256').update(Buffer.from(ZERO_HASH, 'hex')).update(unhashed).digest('hex');
  return encodeSingleObject(CHAINED_ENVELOPE, { ...envelope, hash });
}

describe('event schema versions stay compatible (schemas/history, tests/fixtures/events)', () => {
  it('every enum of every current schema and of the envelope has a default', () => {
    expect(Object.entries(EVENT_SCHEMAS).flatMap(([type, s]) => enumsWithoutDefault(s).map((e) => `${type}: ${e}`))).toEqual([]);
    expect(enumsWithoutDefault(ENVELOPE_SCHEMA)).toEqual([]);
  });

  it.each(VERSIONS.filter(([, v]) => v.length > 1))('%s: every version reads every other, backward and forward, transitively', (_type, versions) => {
    expect(incompatible(versions)).toEqual([]);
  });

  it('the envelope: every version reads every other', () => {
    expect(incompatible([...Object.values(PAST_ENVELOPE_SCHEMAS), ENVELOPE_SCHEMA])).toEqual([]);
  });

  it('the check fails a field added without a default, and a symbol added to an enum without one', () => {
    const v1 = { type: 'record', name: 'T', fields: [{ name: 'a', type: 'string' }, { name: 'e', type: { type: 'enum', name: 'E', symbols: ['x'] } }] };
    const v2 = { ...v1, fields: [...v1.fields, { name: 'b', type: 'long' }] };
    const v3 = { ...v1, fields: [v1.fields[0], { name: 'e', type: { type: 'enum', name: 'E', symbols: ['x', 'y'] } }] };
    expect(incompatible([v1, v2])).toEqual([expect.stringMatching(/^v2 <- v1: /)]);
    expect(incompatible([v1, v3])).toEqual([expect.stringMatching(/^v1 <- v2: /)]);
    // An old reader copes with a new symbol only through a default it already had: why every enum has one now.
    const withDefault = (symbols: string[]) => ({ ...v1, fields: [v1.fields[0], { name: 'e', type: { type: 'enum', name: 'E', symbols, default: 'x' } }] });
    expect(incompatible([withDefault(['x']), withDefault(['x', 'y'])])).toEqual([]);
  });

  it('every type has an encoded fixture at every version (node scripts/gen-event-fixtures.mjs writes missing ones)', () => {
    const have = new Set(readdirSync(FIXTURES));
    expect(VERSIONS.flatMap(([type, v]) => v.map((_, i) => `${type}.${i + 1}.json`)).filter((f) => !have.has(f))).toEqual([]);
  });

  const fixtures = readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).sort();
  it.each(fixtures)('%s decodes with today\'s code, keeping every value its writer wrote', (file) => {
    const fx = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as { type: string; version: number; payload: string; value: Record<string, unknown> };
    const writer = Type.forSchema(VERSIONS.find(([t]) => t === fx.type)![1][fx.version - 1] as never);
    const payload = Buffer.from(fx.payload, 'hex');
    // The fixture is what its version writes: its value, in that version's encoding.
    expect(writer.toBuffer(writer.fromString(JSON.stringify(fx.value))).equals(payload.subarray(10))).toBe(true);
    const event = decodeEvent(recordOf(fx.type, payload));
    expect(event.type).toBe(fx.type);
    const written = JSON.parse(writer.toString(writer.fromBuffer(payload.subarray(10)))) as Record<string, unknown>;
    const read = event.event as unknown as Record<string, unknown>;
    const now = Type.forSchema(EVENT_SCHEMAS[fx.type as EventType] as never) as unknown as { fields: Array<{ name: string }> };
    for (const { name } of now.fields) {
      // A record nested in a field may have gained fields since (with their defaults): what the writer wrote must all be there.
      if (name in written) expect({ [name]: JSON.parse(JSON.stringify(read[name] ?? null)) }).toMatchObject({ [name]: avroJsonToPlain(written[name]) });
    }
  });
});

/** Avro's JSON wraps a non-null union branch as `{ "<type>": value }`; the decoded event holds the value itself. */
function avroJsonToPlain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(avroJsonToPlain);
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 1 && /^(recur\.events\.\w+|string|long|int|double|float|boolean|bytes)$/.test(entries[0][0])) return avroJsonToPlain(entries[0][1]);
    return Object.fromEntries(entries.map(([k, x]) => [k, avroJsonToPlain(x)]));
  }
  return v;
}
