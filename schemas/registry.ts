import type { EventType } from './generated/events';
import { ENVELOPE_SCHEMA, EVENT_SCHEMA_HISTORY, EVENT_SCHEMAS, PAST_ENVELOPE_SCHEMAS } from './generated/schemas';
import { SchemaSet, earlierSchema, soeSchema, type SoeSchema } from './single-object';

/** Parsed once per process: the envelope and the current writer schema of each event type. */
export const ENVELOPE: SoeSchema = soeSchema(ENVELOPE_SCHEMA);

export const EVENT_SCHEMA: Readonly<Record<EventType, SoeSchema>> = Object.fromEntries(
  Object.entries(EVENT_SCHEMAS).map(([type, schema]) => [type, soeSchema(schema)]),
) as Record<EventType, SoeSchema>;

/**
 * Envelope version 1: the writer schema of records logged before signing, and the encoding the
 * hash chain is computed in for every record (keyId and signature lie outside the chain).
 */
export const CHAINED_ENVELOPE: SoeSchema = soeSchema(PAST_ENVELOPE_SCHEMAS.v1);

export const ENVELOPE_SCHEMAS = new SchemaSet([ENVELOPE, CHAINED_ENVELOPE]);
/** Every event writer schema a log may hold: the current ones and their earlier versions (schemas/history). */
export const EVENT_SCHEMAS_BY_FINGERPRINT = new SchemaSet([
  ...Object.values(EVENT_SCHEMA),
  ...Object.entries(EVENT_SCHEMA_HISTORY).flatMap(([type, versions]) =>
    (versions ?? []).map((s) => earlierSchema(s, EVENT_SCHEMA[type as EventType]))),
]);
