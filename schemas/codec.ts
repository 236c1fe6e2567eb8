import { createHash } from 'node:crypto';
import { EventLogError } from '../errors';
import type { Envelope, EventType, RecurEvent, RecurEventInput } from './generated/events';
import { MAX_EVENT_BYTES, ZERO_HASH } from './log-constants';
import { CHAINED_ENVELOPE, ENVELOPE, ENVELOPE_SCHEMAS, EVENT_SCHEMA, EVENT_SCHEMAS_BY_FINGERPRINT } from './registry';
import type { EventSigner } from './signature';
import { isValidSessionId, sessionParent, sessionRoot, eventIdOf } from './session-ids';
import { asWritten, encodeSingleObject, isEncodingOf, type SoeSchema } from './single-object';

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
  if (!isEncodingOf(schema, schema === ENVELOPE ? envelope : unsealed(envelope), asBuffer(value))) {
    // Verification re-encodes events; bytes that decode to the same values some other way would slip past it.
    throw new EventLogError(`${where}: envelope is not in canonical Avro encoding`);
  }
  const event = decodePayload(envelope.payload, envelope.type);
  if (!payloadIsEncodingOf(event, asBuffer(envelope.payload))) {
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

function encodePayload(event: RecurEvent): Buffer {
  const writer = EARLIER_WRITER.get(event) ?? eventSchema(event.type);
  return encodeSingleObject(writer, asWritten(writer, stripType(event)));
}

function payloadIsEncodingOf(event: RecurEvent, bytes: Buffer): boolean {
  const writer = EARLIER_WRITER.get(event) ?? eventSchema(event.type);
  return isEncodingOf(writer, asWritten(writer, stripType(event)), bytes);
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

/**
 * A session id's root and parent, or null when it is not valid; the last few thousand ids are
 * kept, since a reader sees the same few sessions for every record of a tree.
 */
const SESSION_IDS = new Map<string, { root: string; parent: string | null } | null>();
const SESSION_IDS_KEPT = 4096;

function idsOf(sessionId: string): { root: string; parent: string | null } | null {
  let ids = SESSION_IDS.get(sessionId);
  if (ids !== undefined) return ids;
  ids = isValidSessionId(sessionId) ? { root: sessionRoot(sessionId), parent: sessionParent(sessionId) } : null;
  if (SESSION_IDS.size >= SESSION_IDS_KEPT) SESSION_IDS.clear();
  SESSION_IDS.set(sessionId, ids);
  return ids;
}

function checkEnvelope(e: Unhashed): void {
  const where = e.eventId;
  const fail = (why: string): never => {
    throw new EventLogError(`${where}: ${why}`);
  };
  const ids = idsOf(e.sessionId);
  if (!ids) fail(`invalid session id "${e.sessionId}"`);
  if (!Number.isSafeInteger(e.seq) || e.seq < 0) fail(`seq must be a non-negative integer, got ${e.seq}`);
  if (e.eventId !== eventIdOf(e.sessionId, e.seq)) fail(`eventId must be ${eventIdOf(e.sessionId, e.seq)}`);
  if (e.rootId !== ids!.root) fail(`rootId must be ${ids!.root}, got ${e.rootId}`);
  if (e.parentId !== ids!.parent) fail(`parentId must be ${ids!.parent}, got ${e.parentId}`);
  if (!Number.isSafeInteger(e.ts)) fail(`ts must be integer epoch milliseconds, got ${e.ts}`);
  if (!HEX_HASH.test(e.prevHash)) fail('prevHash is not 64 lower-case hex digits');
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function toStoredEvent(e: Envelope, event: RecurEvent): StoredEvent {
  // Frozen, not deep-copied: the envelope's fields are strings, numbers and nulls, and the event is
  // frozen already. Field by field, not a rest spread: V8 copies those slowly, and every record a reader decodes passes here.
  return Object.freeze({
    eventId: e.eventId, sessionId: e.sessionId, rootId: e.rootId, parentId: e.parentId, seq: e.seq, ts: e.ts, type: e.type,
    prevHash: e.prevHash, hash: e.hash, traceId: e.traceId, spanId: e.spanId, keyId: e.keyId, signature: e.signature, event,
  }) as StoredEvent;
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
