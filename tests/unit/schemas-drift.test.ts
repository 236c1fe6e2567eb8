import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_TYPES } from '../../schemas';

const ROOT = join(__dirname, '..', '..');
const SCHEMAS = join(ROOT, 'schemas');
const GENERATOR = join(ROOT, 'scripts', 'gen-types.mjs');

function generate(root: string): Record<string, string> {
  return JSON.parse(execFileSync(process.execPath, [GENERATOR, '--root', root, '--stdout'], { encoding: 'utf8' }));
}

/** Every record, enum and field in a schema, with the path that names it. */
function documentables(schema: unknown, path: string): Array<{ path: string; doc: unknown }> {
  if (Array.isArray(schema)) return schema.flatMap((s) => documentables(s, path));
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as { type: unknown; name?: string; doc?: unknown; fields?: Array<{ name: string; type: unknown; doc?: unknown }>; items?: unknown; values?: unknown };
  const own = s.type === 'record' || s.type === 'enum' || s.type === 'fixed' ? [{ path: `${path} (${s.name})`, doc: s.doc }] : [];
  const fields = (s.fields ?? []).flatMap((f) => [{ path: `${path}.${f.name}`, doc: f.doc }, ...documentables(f.type, `${path}.${f.name}`)]);
  return [...own, ...fields, ...documentables(s.items, path), ...documentables(s.values, path)];
}

const avscFiles = (dir: string): string[] => readdirSync(join(SCHEMAS, dir)).filter((f) => f.endsWith('.avsc')).map((f) => join(dir, f));

describe('schemas are the single source of event types', () => {
  test('the committed generated files equal a fresh generation', () => {
    for (const [rel, content] of Object.entries(generate(SCHEMAS))) {
      expect(readFileSync(join(SCHEMAS, rel), 'utf8')).toBe(content);
    }
  });

  describe('with a scratch copy of schemas/', () => {
    let scratch: string;
    beforeEach(() => {
      scratch = mkdtempSync(join(tmpdir(), 'recur-schemas-'));
      cpSync(SCHEMAS, scratch, { recursive: true });
    });
    afterEach(() => rmSync(scratch, { recursive: true, force: true }));

    test('an edited schema makes the generated types differ (the drift check can fail)', () => {
      const file = join(scratch, 'events', 'SessionCompleted.avsc');
      const schema = JSON.parse(readFileSync(file, 'utf8'));
      schema.fields.push({ name: 'turns', type: 'int', doc: 'Model calls made.' });
      writeFileSync(file, JSON.stringify(schema));
      expect(generate(scratch)['generated/events.ts']).not.toBe(readFileSync(join(SCHEMAS, 'generated', 'events.ts'), 'utf8'));
    });

    test('generation stops on a field without a doc, naming it', () => {
      const file = join(scratch, 'events', 'MessageRefused.avsc');
      const schema = JSON.parse(readFileSync(file, 'utf8'));
      delete schema.fields[2].doc;
      writeFileSync(file, JSON.stringify(schema));
      const run = spawnSync(process.execPath, [GENERATOR, '--root', scratch, '--stdout'], { encoding: 'utf8' });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('MessageRefused.avsc.reason: field has no doc');
    });
  });

  test('every event type the design names has a schema file with its explicit full name', () => {
    const required = [
      'SessionStarted', 'ModelCalled', 'CellRequested', 'CellExecuted', 'SubagentSpawned', 'SubagentCompleted',
      'MessageSent', 'MessageRefused', 'MessageDelivered', 'SessionCompleted', 'SessionFailed',
    ];
    const files = avscFiles('events').map((f) => f.slice('events/'.length, -'.avsc'.length));
    expect([...EVENT_TYPES].sort()).toEqual([...files].sort());
    expect(files).toEqual(expect.arrayContaining(required));
    for (const type of files) {
      expect(JSON.parse(readFileSync(join(SCHEMAS, 'events', `${type}.avsc`), 'utf8')).name).toBe(`recur.events.${type}`);
    }
  });

  test('every record, enum and field in every schema has a doc', () => {
    const files = ['envelope.avsc', ...avscFiles('types'), ...avscFiles('events')];
    const all = files.flatMap((f) => documentables(JSON.parse(readFileSync(join(SCHEMAS, f), 'utf8')), f));
    expect(all.length).toBeGreaterThan(80);
    expect(all.filter((d) => typeof d.doc !== 'string' || d.doc.trim() === '').map((d) => d.path)).toEqual([]);
  });
});
