import { createHash } from 'node:crypto';
import { EventLogError } from '../errors';
import type { Envelope, EventType, RecurEvent, RecurEventInput } from './generated/events';
import { MAX_EVENT_BYTES, ZERO_HASH } from './log-constants';
import { CHAINED_ENVELOPE, ENVELOPE, ENVELOPE_SCHEMAS, EVENT_SCHEMA, EVENT_SCHEMAS_BY_FINGERPRINT } from './registry';
import type { EventSigner } from './signature';
import { isValidSessionId, sessionParent, sessionRoot, eventIdOf } from './session-ids';
import { asWritten, encodeSingleObject, reencodeSingleObject, type SoeSchema } from './single-object';

const HEX_HASH = /^[0-9a-f]{64}$/;
const NAMESPACE = 'recur.events.';

/** A decoded log entry: the envelope, with its payload decoded into `event`. Deeply frozen. */
export interface StoredEvent<E extends RecurEvent = RecurEvent> extends Omit<Envelope, 'type' | 'payload'> {
  readonly type: E['type'];
  readonly event: E;
}

export interface EncodeEventInput {
  sessionId: string;
  rootId: string;
  parentId: string | null;
  seq: number;
  /** Event time in UTC epoch milliseconds; the caller's clock (workflow time), never read here. */
  ts: number;
  prevHash: string;
  traceId?: string | null;
  spanId?: string | null;
  event: RecurEventInput;
}

/** The fields the hash chain covers, hash aside. */
type Unhashed = Omit<Envelope, 'hash' | 'keyId' | 'signature'>;

const UNSIGNED = { keyId: null, signature: null } as const;

/**
 * Encodes one event as the Kafka value of its record, sealed by `signer` when given. Pure: the
 * same input and key give the same bytes, so a retried append writes an exact duplicate that
 * readers drop.
 */
export function encodeEvent(input: EncodeEventInput, signer?: EventSigner): { record: StoredEvent; value: Buffer } {
  const { event, sessionId, seq } = input;
  const schema = eventSchema(event.type);
  const { type, ...fields } = event;
  const payload = encodeSingleObject(schema, fields);
  const envelope: Unhashed = {
    eventId: eventIdOf(sessionId, seq),
    sessionId,
    rootId: input.rootId,
    parentId: input.parentId,
    seq,
    ts: input.ts,
    type,
    prevHash: input.prevHash,
    traceId: input.traceId ?? null,
    spanId: input.spanId ?? null,
    payload,
  };
  checkEnvelope(envelope);
  if (seq === 0 && input.prevHash !== ZERO_HASH) throw new EventLogError(`${envelope.eventId}: seq 0 must have prevHash ${ZERO_HASH}`);
  const hash = chainHash(envelope);
  const sealed = { ...envelope, hash, ...(signer ? signer.seal(hash) : UNSIGNED) };
  const value = encodeSingleObject(ENVELOPE, sealed);
  if (value.length > MAX_EVENT_BYTES) {
    throw new EventLogError(`${envelope.eventId}: ${type} is ${value.length} bytes, over the ${MAX_EVENT_BYTES}-byte limit`, {
      hint: 'keep a truncated preview inline and put the full text in the blob store (a BlobRef field)',
    });
  }
  // Decoding what we wrote fills in defaults, so `record` equals what every reader will see.
  return { record: toStoredEvent(sealed, decodePayload(payload, type)), value };
}

/** Decodes a Kafka value; throws EventLogError naming what is wrong. Does not check the hash. */
export function decodeEvent(value: Uint8Array): StoredEvent {
  const { schema, value: decoded } = ENVELOPE_SCHEMAS.decode(value);
  // A record from before signing decodes as unsigned. Literal defaults, not `...UNSIGNED`: V8 copies
  // a spread over another spread's keys slowly, and every record a reader decodes passes here.
  const envelope = { keyId: null, signature: null, ...(decoded as object) } as Envelope;
  const where = envelope.eventId;
  checkEnvelope(envelope);
  if (!HEX_HASH.test(envelope.hash)) throw new EventLogError(`${where}: hash is not 64 hex digits`);
  if (!asBuffer(value).equals(reencodeSingleObject(schema, schema === ENVELOPE ? envelope : unsealed(envelope)))) {
    // Verification re-encodes events; bytes that decode to the same values some other way would slip past it.
    throw new EventLogError(`${where}: envelope is not in canonical Avro encoding`);
  }
  const event = decodePayload(envelope.payload, envelope.type);
  if (!encodePayload(event, reencodeSingleObject).equals(envelope.payload)) {
    throw new EventLogError(`${where}: payload is not in canonical Avro encoding`);
  }
  return toStoredEvent(envelope, event);
}

/** The hash `record` should carry, recomputed from its content (see schemas/README.md). */
export function computeEventHash(record: StoredEvent): string {
  const { event, hash: _claimed, keyId: _keyId, signature: _signature, ...rest } = record;
  return chainHash({ ...rest, payload: encodePayload(event) });
}

/** The envelope without its seal, as a record from before signing holds it. */
function unsealed(envelope: Envelope): Omit<Envelope, 'keyId' | 'signature'> {
  const { keyId: _keyId, signature: _signature, ...chained } = envelope;
  return chained;
}

function chainHash(envelope: Unhashed): string {
  const unhashed = encodeSingleObject(CHAINED_ENVELOPE, { ...envelope, hash: '' });
  return createHash('sha256').update(Buffer.from(envelope.prevHash, 'hex')).update(unhashed).digest('hex');
}

function eventSchema(type: string): SoeSchema {
  const schema = (EVENT_SCHEMA as Record<string, SoeSchema | undefined>)[type];
  if (!schema) throw new EventLogError(`unknown event type "${type}"`);
  return schema;
}

/**
 * Events decoded from an earlier writer schema, and that schema: hashing re-encodes an event as
 * it was written, so old events verify. An edited copy is a new object, encoded as current.
 */
const EARLIER_WRITER = new WeakMap<object, SoeSchema>();

function encodePayload(event: RecurEvent, encode = encodeSingleObject): Buffer {
  const writer = EARLIER_WRITER.get(event) ?? eventSchema(event.type);
  return encode(writer, asWritten(writer, stripType(event)));
}

function stripType(event: RecurEvent): object {
  const { type: _type, ...fields } = event;
  return fields;
}

function decodePayload(payload: Buffer, type: string): RecurEvent {
  const { schema, value } = EVENT_SCHEMAS_BY_FINGERPRINT.decode(payload);
  if (schema.name !== NAMESPACE + type) throw new EventLogError(`envelope type ${type} carries a ${schema.name} payload`);
  const event = deepFreeze({ type: type as EventType, ...(value as object) }) as RecurEvent;
  if (schema.readAs) EARLIER_WRITER.set(event, schema);
  return event;
}

function checkEnvelope(e: Unhashed): void {
  const where = e.eventId;
  const fail = (why: string): never => {
    throw new EventLogError(`${where}: ${why}`);
  };
  if (!isValidSessionId(e.sessionId)) fail(`invalid session id "${e.sessionId}"`);
  if (!Number.isSafeInteger(e.seq) || e.seq < 0) fail(`seq must be a non-negative integer, got ${e.seq}`);
  if (e.eventId !== eventIdOf(e.sessionId, e.seq)) fail(`eventId must be ${eventIdOf(e.sessionId, e.seq)}`);
  if (e.rootId !== sessionRoot(e.sessionId)) fail(`rootId must be ${sessionRoot(e.sessionId)}, got ${e.rootId}`);
  if (e.parentId !== sessionParent(e.sessionId)) fail(`parentId must be ${sessionParent(e.sessionId)}, got ${e.parentId}`);
  if (!Number.isSafeInteger(e.ts)) fail(`ts must be integer epoch milliseconds, got ${e.ts}`);
  if (!HEX_HASH.test(e.prevHash)) fail('prevHash is not 64 lower-case hex digits');
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function toStoredEvent(envelope: Envelope, event: RecurEvent): StoredEvent {
  const { payload: _payload, ...rest } = envelope;
  // Frozen, not deep-copied: the envelope's fields are strings, numbers and nulls, and the event is frozen already.
  return Object.freeze({ ...rest, event }) as StoredEvent;
}

/** Copies avsc's record instances into plain frozen objects, so events compare and serialise as data. */
function deepFreeze(value: unknown): unknown {
  // Already copied and frozen (a decoded event): kept as is, so EARLIER_WRITER still knows it.
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value) || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) return Object.freeze(value.map(deepFreeze));
  // A plain loop: every record a reader decodes passes here, and entries/fromEntries cost more than the decoding.
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = deepFreeze((value as Record<string, unknown>)[key]);
  return Object.freeze(copy);
}
