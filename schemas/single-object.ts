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
      return { schema, value: schema.type.fromBuffer(bytes.subarray(HEADER_LENGTH)) };
    } catch (cause) {
      throw new EventLogError(`${schema.name}: undecodable body: ${(cause as Error).message}`, { cause });
    }
  }
}
