import { EventLogError } from '../../errors';
import { SchemaSet, encodeSingleObject, soeSchema } from '../../schemas';

const person = soeSchema({
  type: 'record',
  name: 'test.Person',
  fields: [
    { name: 'name', type: 'string' },
    { name: 'nick', type: ['null', 'string'], default: null },
  ],
});

describe('Avro single-object encoding', () => {
  test('an int is C3 01, the little-endian CRC-64-AVRO of "int", then the zigzag varint', () => {
    expect(encodeSingleObject(soeSchema('int'), 1).toString('hex')).toBe('c3018f5c393f1ad5757202');
  });

  test('round-trips a record through a schema set, filling defaults', () => {
    const bytes = encodeSingleObject(person, { name: 'Ada' });
    const { schema, value } = new SchemaSet([person, soeSchema('int')]).decode(bytes);
    expect(schema.name).toBe('test.Person');
    expect({ ...(value as object) }).toEqual({ name: 'Ada', nick: null });
  });

  test('an unknown fingerprint is reported by its CRC-64-AVRO value', () => {
    const bytes = encodeSingleObject(soeSchema('int'), 7);
    expect(() => new SchemaSet([person]).decode(bytes)).toThrow(
      new EventLogError('unknown writer schema: CRC-64-AVRO fingerprint 0x7275d51a3f395c8f is not one of ours'),
    );
  });

  test('rejects a missing header, a truncated body and trailing bytes', () => {
    const set = new SchemaSet([person]);
    const good = encodeSingleObject(person, { name: 'Ada', nick: 'a' });
    expect(() => set.decode(Buffer.from('{"name":"Ada"}'))).toThrow(/missing C3 01 header/);
    expect(() => set.decode(good.subarray(0, good.length - 1))).toThrow(/test.Person: undecodable body: truncated/);
    expect(() => set.decode(Buffer.concat([good, Buffer.from([0])]))).toThrow(/trailing data/);
  });

  test('refuses to encode an invalid value, naming the field', () => {
    expect(() => encodeSingleObject(person, { name: 42 })).toThrow(/not a valid test.Person: name = 42/);
    expect(() => encodeSingleObject(person, { name: 'Ada', age: 3 })).toThrow(EventLogError);
  });
});
