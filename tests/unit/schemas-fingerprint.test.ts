import { Type } from 'avsc';
import { crc64Avro, fingerprintBytes, parsingCanonicalForm, soeSchema } from '../../schemas';
import { ENVELOPE_SCHEMA, EVENT_SCHEMAS } from '../../schemas/generated/schemas';

// [input schema, Parsing Canonical Form, CRC-64-AVRO as a signed i64 (or null: none given)],
// from apache/avro share/test/data/schema-tests.txt.
const SPEC_VECTORS: [string, string, string | null][] = [
  ['"null"', '"null"', '7195948357588979594'],
  ['{"type":"null"}', '"null"', null],
  ['"boolean"', '"boolean"', '-6970731678124411036'],
  ['"int"', '"int"', '8247732601305521295'],
  ['{"type":"int"}', '"int"', null],
  ['"long"', '"long"', '-3434872931120570953'],
  ['"float"', '"float"', '5583340709985441680'],
  ['"double"', '"double"', '-8181574048448539266'],
  ['"bytes"', '"bytes"', '5746618253357095269'],
  ['"string"', '"string"', '-8142146995180207161'],
  ['[  ]', '[]', '-1241056759729112623'],
  ['[ "int"  ]', '["int"]', '-5232228896498058493'],
  ['[ "int" , {"type":"boolean"} ]', '["int","boolean"]', '5392556393470105090'],
  ['{"fields":[], "type":"record", "name":"foo"}', '{"name":"foo","type":"record","fields":[]}', '-4824392279771201922'],
  ['{"fields":[], "type":"record", "name":"foo", "namespace":"x.y"}', '{"name":"x.y.foo","type":"record","fields":[]}', '5916914534497305771'],
  ['{"fields":[], "type":"record", "name":"a.b.foo", "namespace":"x.y"}', '{"name":"a.b.foo","type":"record","fields":[]}', '-4616218487480524110'],
  ['{"fields":[], "type":"record", "name":"foo", "doc":"foo", "aliases":["foo","bar"]}', '{"name":"foo","type":"record","fields":[]}', '-4824392279771201922'],
  ['{"fields":[{"type":{"type":"boolean"}, "name":"f1"}], "type":"record", "name":"foo"}', '{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"}]}', '7843277075252814651'],
  [
    '{"fields":[{"type":"boolean","aliases":[],"name":"f1","default":"true"},{"order":"descending","name":"f2","doc":"Hello","type":"int"}],"type":"record","name":"foo"}',
    '{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"},{"name":"f2","type":"int"}]}',
    '-4860222112080293046',
  ],
  ['{"type":"enum", "name":"foo", "symbols":["A1"]}', '{"name":"foo","type":"enum","symbols":["A1"]}', '-6342190197741309591'],
  ['{"namespace":"x.y.z", "type":"enum", "name":"foo", "doc":"foo bar", "symbols":["A1", "A2"]}', '{"name":"x.y.z.foo","type":"enum","symbols":["A1","A2"]}', '-4448647247586288245'],
  ['{"name":"foo","type":"fixed","size":15}', '{"name":"foo","type":"fixed","size":15}', '1756455273707447556'],
  ['{"namespace":"x.y.z", "type":"fixed", "name":"foo", "doc":"foo bar", "size":32}', '{"name":"x.y.z.foo","type":"fixed","size":32}', '-3064184465700546786'],
  ['{ "items":{"type":"null"}, "type":"array"}', '{"type":"array","items":"null"}', '-589620603366471059'],
  ['{ "values":"string", "type":"map"}', '{"type":"map","values":"string"}', '-8732877298790414990'],
  [
    '{"name":"PigValue","type":"record","fields":[{"name":"value", "type":["null", "int", "long", "PigValue"]}]}',
    '{"name":"PigValue","type":"record","fields":[{"name":"value","type":["null","int","long","PigValue"]}]}',
    '-1759257747318642341',
  ],
];

describe('CRC-64-AVRO and Parsing Canonical Form', () => {
  test.each(SPEC_VECTORS)('%s has the spec canonical form and fingerprint', (input, canonical, fingerprint) => {
    expect(parsingCanonicalForm(JSON.parse(input))).toBe(canonical);
    if (fingerprint !== null) expect(BigInt.asIntN(64, crc64Avro(canonical)).toString()).toBe(fingerprint);
  });

  test('"int" fingerprints to 0x7275d51a3f395c8f, written little-endian', () => {
    expect(crc64Avro('"int"')).toBe(0x7275d51a3f395c8fn);
    expect(fingerprintBytes(crc64Avro('"int"')).toString('hex')).toBe('8f5c393f1ad57572');
  });

  test('nested named types take the enclosing namespace and are written in full only once', () => {
    const schema = {
      type: 'record', name: 'Outer', namespace: 'a.b', doc: 'x',
      fields: [
        { name: 'x', type: { type: 'fixed', name: 'Hash', size: 4 }, default: 'abcd' },
        { name: 'y', type: 'Hash' },
        { name: 'z', type: { type: 'long', logicalType: 'timestamp-millis' } },
      ],
    };
    expect(parsingCanonicalForm(schema)).toBe(
      '{"name":"a.b.Outer","type":"record","fields":[{"name":"x","type":{"name":"a.b.Hash","type":"fixed","size":4}},' +
        '{"name":"y","type":"a.b.Hash"},{"name":"z","type":"long"}]}',
    );
  });

  test.each(Object.entries({ Envelope: ENVELOPE_SCHEMA, ...EVENT_SCHEMAS }))(
    '%s: avsc prints the same canonical form, with docs, defaults and logical types stripped',
    (_name, schema) => {
      const canonical = parsingCanonicalForm(schema);
      expect(canonical).toBe(JSON.stringify(Type.forSchema(schema as never).schema()));
      expect(canonical).not.toMatch(/"doc"|"default"|"logicalType"|"namespace"/);
      expect(soeSchema(schema).fingerprint.equals(fingerprintBytes(crc64Avro(canonical)))).toBe(true);
    },
  );
});
