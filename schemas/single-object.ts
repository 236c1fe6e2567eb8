import { Type } from 'avsc';
import { EventLogError } from '../errors';
import { parsingCanonicalForm } from './canonical-form';
import { crc64Avro, fingerprintBytes } from './crc64';

/**
 * Avro single-object encoding: `C3 01`, the writer schema's CRC-64-AVRO fingerprint (8 bytes,
 * little-endian), then the Avro binary body. The fingerprint names the writer schema, so a
 * reader holding several versions can pick the right one.
 */
export const SOE_MAGIC = Buffer.from([0xc3, 0x01]);
const HEADER_LENGTH = SOE_MAGIC.length + 8;

export interface SoeSchema {
  /** Full name, e.g. `recur.events.CellExecuted`. */
  readonly name: string;
  readonly type: Type;
  readonly canonicalForm: string;
  readonly fingerprint: Buffer;
  /** An earlier writer schema: what it wrote is read as this current schema (Avro schema resolution). */
  readonly readAs?: { readonly schema: SoeSchema; readonly resolver: ReturnType<Type['createResolver']> };
}

/** An earlier version of `current`, whose records decode to the current shape (added fields at their defaults). */
export function earlierSchema(schema: unknown, current: SoeSchema): SoeSchema {
  const writer = soeSchema(schema);
  if (writer.name !== current.name) throw new EventLogError(`${writer.name} cannot be an earlier version of ${current.name}`);
  return { ...writer, readAs: { schema: current, resolver: current.type.createResolver(writer.type) } };
}

/**
 * The fields of `value` the writer schema knows: a value read as the current schema, encoded
 * again with the schema that wrote it, gives back the bytes it was read from.
 */
export function asWritten(writer: SoeSchema, value: object): object {
  if (!writer.readAs) return value;
  const fields = (writer.type as unknown as { fields: Array<{ name: string }> }).fields;
  return Object.fromEntries(fields.map((f) => [f.name, (value as Record<string, unknown>)[f.name]]));
}

export function soeSchema(schema: unknown): SoeSchema {
  const type = Type.forSchema(schema as Parameters<typeof Type.forSchema>[0]);
  const canonicalForm = parsingCanonicalForm(schema);
  return { name: type.name ?? type.typeName, type, canonicalForm, fingerprint: fingerprintBytes(crc64Avro(canonicalForm)) };
}

export function encodeSingleObject(schema: SoeSchema, value: unknown): Buffer {
  const problems: string[] = [];
  const ok = schema.type.isValid(value, {
    noUndeclaredFields: true,
    errorHook: (path: string[], got: unknown) => problems.push(`${path.join('.') || '(value)'} = ${describe(got)}`),
  });
  if (!ok) throw new EventLogError(`not a valid ${schema.name}: ${problems.join('; ')}`);
  return Buffer.concat([SOE_MAGIC, schema.fingerprint, schema.type.toBuffer(value)]);
}

/**
 * Where the canonical bytes check re-encodes: avsc's toBuffer allocates (and zero-fills) a buffer
 * per value and writes anything over 1 KiB twice, which was a third of the cost of decoding.
 */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * Whether `bytes` are exactly the single-object encoding of `value` under `schema`: for a value
 * just decoded with `schema`, valid by construction, so it is not checked again. Readers compare
 * every record they decode (the canonical bytes check), and that check was most of the cost of
 * reading a large tree.
 */
export function isEncodingOf(schema: SoeSchema, value: unknown, bytes: Buffer): boolean {
  const header = SOE_MAGIC.length + schema.fingerprint.length;
  if (bytes.length <= header || bytes[0] !== SOE_MAGIC[0] || bytes[1] !== SOE_MAGIC[1] || !schema.fingerprint.equals(bytes.subarray(SOE_MAGIC.length, header))) return false;
  const body = bytes.length - header;
  // One byte to spare: an encoding longer than the record shows as one that does not fit.
  if (scratch.length <= body) scratch = Buffer.allocUnsafe(2 * body);
  const end = schema.type.encode(value, scratch, 0);
  return end === body && scratch.compare(bytes, header, bytes.length, 0, end) === 0;
}

function describe(v: unknown): string {
  if (v === undefined) return 'undefined';
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Writer schemas by fingerprint; decoding names the fingerprint it does not know. */
export class SchemaSet {
  private readonly byFingerprint = new Map<string, SoeSchema>();

  constructor(schemas: Iterable<SoeSchema>) {
    for (const s of schemas) {
      const key = s.fingerprint.toString('hex');
      const clash = this.byFingerprint.get(key);
      if (clash && clash.canonicalForm !== s.canonicalForm) {
        throw new EventLogError(`fingerprint collision between ${clash.name} and ${s.name}`);
      }
      this.byFingerprint.set(key, s);
    }
  }

  decode(buf: Uint8Array): { schema: SoeSchema; value: unknown } {
    const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    if (bytes.length < HEADER_LENGTH || bytes[0] !== SOE_MAGIC[0] || bytes[1] !== SOE_MAGIC[1]) {
      throw new EventLogError('not Avro single-object encoded (missing C3 01 header)');
    }
    const fp = bytes.subarray(SOE_MAGIC.length, HEADER_LENGTH);
    const schema = this.byFingerprint.get(fp.toString('hex'));
    if (!schema) {
      const hex = fp.readBigUInt64LE().toString(16).padStart(16, '0');
      throw new EventLogError(`unknown writer schema: CRC-64-AVRO fingerprint 0x${hex} is not one of ours`);
    }
    try {
      const body = bytes.subarray(HEADER_LENGTH);
      const value = schema.readAs ? schema.readAs.schema.type.fromBuffer(body, schema.readAs.resolver) : schema.type.fromBuffer(body);
      return { schema, value };
    } catch (cause) {
      throw new EventLogError(`${schema.name}: undecodable body: ${(cause as Error).message}`, { cause });
    }
  }
}
