/**
 * Avro Parsing Canonical Form (spec, "Transforming into Parsing Canonical Form"), computed from
 * schema JSON so fingerprints never depend on what a library chooses to print: full names,
 * no namespace/doc/aliases/defaults/logicalType, keys in the order name, type, fields, symbols,
 * items, values, size, and no whitespace.
 */
const PRIMITIVES = new Set(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export function parsingCanonicalForm(schema: unknown): string {
  return canon(schema as Json, '', new Set());
}

function fullName(name: string, namespace: string): string {
  return name.includes('.') || !namespace ? name : `${namespace}.${name}`;
}

function canon(s: Json, namespace: string, defined: Set<string>): string {
  if (typeof s === 'string') return JSON.stringify(PRIMITIVES.has(s) ? s : fullName(s, namespace));
  if (Array.isArray(s)) return `[${s.map((b) => canon(b, namespace, defined)).join(',')}]`;
  if (s === null || typeof s !== 'object') throw new TypeError(`not an Avro schema: ${JSON.stringify(s)}`);
  const type = s.type;
  if (typeof type !== 'string') return canon(type, namespace, defined);
  if (PRIMITIVES.has(type)) return JSON.stringify(type);
  if (type === 'array') return `{"type":"array","items":${canon(s.items, namespace, defined)}}`;
  if (type === 'map') return `{"type":"map","values":${canon(s.values, namespace, defined)}}`;
  if (type !== 'record' && type !== 'error' && type !== 'enum' && type !== 'fixed') {
    return canon(type, namespace, defined); // a reference to a named type written as {"type": "Name"}
  }
  const name = fullName(String(s.name), typeof s.namespace === 'string' ? s.namespace : namespace);
  if (defined.has(name)) return JSON.stringify(name);
  defined.add(name);
  const head = `{"name":${JSON.stringify(name)},"type":${JSON.stringify(type === 'error' ? 'record' : type)}`;
  const inner = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : '';
  if (type === 'enum') return `${head},"symbols":${JSON.stringify(s.symbols)}}`;
  if (type === 'fixed') return `${head},"size":${Number(s.size)}}`;
  const fields = (s.fields as { [key: string]: Json }[]).map(
    (f) => `{"name":${JSON.stringify(f.name)},"type":${canon(f.type, inner, defined)}}`,
  );
  return `${head},"fields":[${fields.join(',')}]}`;
}
