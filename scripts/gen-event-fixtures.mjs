#!/usr/bin/env node
/**
 * Writes an encoded fixture for every event type at every schema version that has none yet:
 * tests/fixtures/events/<Type>.<version>.json holds a payload exactly as that version's writer
 * encodes it (Avro single-object, hex) and the value it holds (Avro JSON). A fixture is never
 * rewritten: it stands for records already on someone's topic, which every later version must
 * still decode (tests/unit/schema-compat.test.ts). Run after `npm run build`, whenever a schema
 * gets a new version: node scripts/gen-event-fixtures.mjs
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { EVENT_SCHEMAS, EVENT_SCHEMA_HISTORY } = require(join(root, 'dist/schemas/generated/schemas.js'));
const { encodeSingleObject, soeSchema } = require(join(root, 'dist/schemas/index.js'));

const dir = join(root, 'tests/fixtures/events');
mkdirSync(dir, { recursive: true });
let written = 0;
for (const [type, current] of Object.entries(EVENT_SCHEMAS)) {
  const versions = [...(EVENT_SCHEMA_HISTORY[type] ?? []), current];
  versions.forEach((schema, i) => {
    const file = join(dir, `${type}.${i + 1}.json`);
    if (existsSync(file)) return;
    const soe = soeSchema(schema);
    const value = soe.type.random();
    const fixture = { type, version: i + 1, fingerprint: soe.fingerprint.toString('hex'), payload: encodeSingleObject(soe, value).toString('hex'), value: JSON.parse(soe.type.toString(value)) };
    writeFileSync(file, `${JSON.stringify(fixture, null, 2)}\n`);
    written++;
  });
}
process.stderr.write(`gen-event-fixtures: ${written} new fixture(s) in tests/fixtures/events\n`);
