import { createHash, sign, verify, type KeyObject } from 'node:crypto';
import { EventLogError } from '../errors';

/**
 * Ed25519 seals over the hash chain. A seal signs one event's hash, and the hash covers the event
 * and (through prevHash) everything before it in its session, so a valid seal proves the key's
 * holder wrote this event at this place in this session. Ed25519 signatures are deterministic:
 * a retried append re-seals to the same bytes, which readers drop as an exact duplicate.
 */

/** What a signature signs ahead of the hash, so a seal can never be taken for another protocol's. */
const DOMAIN = Buffer.from('recur-event-log-v1', 'ascii');
const HEX_SIGNATURE = /^[0-9a-f]{128}$/;

export interface EventSeal {
  readonly keyId: string;
  readonly signature: string;
}

/** What the codec asks to seal each event it encodes. */
export interface EventSigner {
  seal(hash: string): EventSeal;
}

/** Public keys by key id. */
export type Keyring = ReadonlyMap<string, KeyObject>;

export type SealFault = 'unsigned' | 'unknown-key' | 'bad-signature';

/** The first 32 hex digits of the SHA-256 of the raw 32-byte public key: a file names its own key. */
export function logKeyId(publicKey: KeyObject): string {
  if (publicKey.asymmetricKeyType !== 'ed25519') throw new EventLogError(`log keys are Ed25519, got ${publicKey.asymmetricKeyType}`);
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return createHash('sha256').update(raw).digest('hex').slice(0, 32);
}

export function eventSigner(privateKey: KeyObject, publicKey: KeyObject): EventSigner {
  const keyId = logKeyId(publicKey);
  return { seal: (hash) => ({ keyId, signature: sign(null, sealedBytes(hash), privateKey).toString('hex') }) };
}

export function keyringOf(publicKeys: Iterable<KeyObject>): Keyring {
  return new Map([...publicKeys].map((k) => [logKeyId(k), k]));
}

/** Null when `record` carries a valid seal by a key in `keys`; otherwise what is wrong with it. */
export function checkSeal(record: { hash: string; keyId: string | null; signature: string | null }, keys: Keyring): SealFault | null {
  if (record.keyId === null || record.signature === null) return 'unsigned';
  const key = keys.get(record.keyId);
  if (!key) return 'unknown-key';
  if (!HEX_SIGNATURE.test(record.signature)) return 'bad-signature';
  return verify(null, sealedBytes(record.hash), key, Buffer.from(record.signature, 'hex')) ? null : 'bad-signature';
}

function sealedBytes(hash: string): Buffer {
  return Buffer.concat([DOMAIN, Buffer.from(hash, 'hex')]);
}
