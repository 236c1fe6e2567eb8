/**
 * CRC-64-AVRO (the Rabin fingerprint of the Avro spec), used for single-object encoding.
 * avsc@5's `fingerprint()` is MD5, which single-object readers in other languages reject.
 */
const EMPTY = 0xc15d213aa4d7a795n;
const MASK = 0xffffffffffffffffn;

const TABLE: readonly bigint[] = Array.from({ length: 256 }, (_, i) => {
  let fp = BigInt(i);
  for (let j = 0; j < 8; j++) fp = (fp >> 1n) ^ (EMPTY & -(fp & 1n) & MASK);
  return fp;
});

/** The unsigned 64-bit fingerprint of `data` (a string is taken as UTF-8). */
export function crc64Avro(data: string | Uint8Array): bigint {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let fp = EMPTY;
  for (const b of bytes) fp = (fp >> 8n) ^ TABLE[Number((fp ^ BigInt(b)) & 0xffn)];
  return fp;
}

/** The fingerprint as single-object encoding writes it: 8 bytes, little-endian. */
export function fingerprintBytes(fp: bigint): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(fp);
  return out;
}
