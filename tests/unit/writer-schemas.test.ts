import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_TYPES } from '../../schemas';
import { CHAINED_ENVELOPE, ENVELOPE, EVENT_SCHEMA } from '../../schemas/registry';

interface Version { version: number; fingerprint: string; schema: { name: string } }

const ROOT = join(__dirname, '..', '..');
const PUBLISHED = JSON.parse(readFileSync(join(ROOT, 'schemas', 'generated', 'writer-schemas.json'), 'utf8')) as
  { envelope: Version[]; events: Record<string, Version[]> };
const FIXTURES = join(ROOT, 'tests', 'fixtures');
const hex = (b: Buffer) => b.toString('hex');
/** The fingerprint in a single-object header: the 8 bytes after C3 01. */
const headerFingerprint = (value: string) => value.slice(4, 20);

/** What readers in other languages look writer schemas up in (docs/consumers.md); its drift check is schemas-drift.test.ts. */
describe('schemas/generated/writer-schemas.json', () => {
  test('lists every event type; the last version of each, and of the envelope, is what the codec writes now', () => {
    expect(Object.keys(PUBLISHED.events).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const versions = PUBLISHED.events[type];
      expect(versions.map((v) => v.version)).toEqual(versions.map((_, i) => i + 1));
      expect(versions.every((v) => v.schema.name === `recur.events.${type}`)).toBe(true);
      expect(versions.at(-1)!.fingerprint).toBe(hex(EVENT_SCHEMA[type].fingerprint));
    }
    expect(PUBLISHED.envelope.map((v) => v.fingerprint)).toEqual([hex(CHAINED_ENVELOPE.fingerprint), hex(ENVELOPE.fingerprint)]);
  });

  test('each encoded fixture of a version (tests/fixtures/events/<Type>.<n>.json) carries version n\'s fingerprint', () => {
    const files = readdirSync(join(FIXTURES, 'events')).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(Object.values(PUBLISHED.events).flat().length);
    for (const file of files) {
      const { type, version, payload } = JSON.parse(readFileSync(join(FIXTURES, 'events', file), 'utf8'));
      expect([file, headerFingerprint(payload)]).toEqual([file, PUBLISHED.events[type][version - 1].fingerprint]);
    }
  });

  test('records logged before signing (tests/fixtures/envelope-v1-log.json) carry envelope version 1\'s fingerprint', () => {
    const { values } = JSON.parse(readFileSync(join(FIXTURES, 'envelope-v1-log.json'), 'utf8')) as { values: string[] };
    expect(new Set(values.map(headerFingerprint))).toEqual(new Set([PUBLISHED.envelope[0].fingerprint]));
  });
});
