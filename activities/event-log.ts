import { Partitioners, type Kafka, type Message, type Producer } from 'kafkajs';
import { EventLogError } from '../errors';
import { encodeEventBatch, type EncodedBatch, type EventBatchInput, type EventSigner, type StoredEvent } from '../schemas';
import { clipEvent } from '../schemas/field-limits';

export type AppendEventsInput = EventBatchInput;

export interface AppendEventsResult {
  /** seq the session's next event must have. */
  nextSeq: number;
  /** Hash of the last event appended (the input prevHash when `events` was empty). */
  headHash: string;
  eventIds: string[];
  /** The trace ids its last event carries (null: untraced); events that ride an activity take them (workflows/session-log.ts `ride`). */
  trace?: { traceId: string | null; spanId: string | null };
}

export interface EventLogActivities {
  appendEvents(input: AppendEventsInput): Promise<AppendEventsResult>;
}

/**
 * The producer settings the log relies on: idempotent with acks=all so a broker-side retry never
 * duplicates or reorders a session's records (kafkajs requires one request in flight for that).
 */
export function createEventLogProducer(kafka: Kafka): Producer {
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
}

/** Kafka errors that repeating the same append cannot fix. */
const PERMANENT = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_TOPIC_EXCEPTION', 'TOPIC_AUTHORIZATION_FAILED', 'CLUSTER_AUTHORIZATION_FAILED', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED']);
/** Records per produce request stay under Kafka's default 1 MiB batch limit. */
const MAX_REQUEST_BYTES = 768 * 1024;

/** What an append of `batch` reports: the log's new head, and the trace ids its last event carries. */
export function appendedBatch(batch: EncodedBatch): AppendEventsResult {
  const last = batch.records.at(-1);
  return { nextSeq: batch.nextSeq, headHash: batch.headHash, eventIds: batch.records.map((r) => r.eventId), ...(last && { trace: { traceId: last.traceId, spanId: last.spanId } }) };
}

/**
 * `appendEvents` encodes a batch of one session's events, each held to its field limits
 * (schemas/field-limits.ts) and sealed by `signer`, and writes them keyed by sessionId.
 * Encoding and Ed25519 signing are pure and Kafka record timestamps are the events' own `ts`, so
 * a retried activity writes byte-identical records, which readers drop as duplicates by eventId.
 * Pass `producer` (from createEventLogProducer) to own its lifecycle; otherwise one is created
 * on first use and lives as long as the process.
 */
export function createEventLogActivities(deps: {
  kafka: Kafka;
  topic: string;
  /** Seals every event (services/home/log-keys.ts homeSigner); required, so no writer can log unsigned. */
  signer: EventSigner;
  producer?: Producer;
  /** Told of every batch once Kafka has acknowledged it (the worker's transcript cache listens). */
  onAppended?: (records: readonly StoredEvent[]) => void;
  /** Awaited before a root session's first record is written (the offset index takes the tree's start). */
  beforeTreeStarts?: (rootId: string) => Promise<void>;
}): EventLogActivities {
  const producer = deps.producer ?? createEventLogProducer(deps.kafka);
  let connected: Promise<void> | undefined;
  const connect = (): Promise<void> => {
    connected ??= producer.connect().catch((err: unknown) => {
      connected = undefined;
      throw err;
    });
    return connected;
  };

  return {
    async appendEvents(input) {
      const batch = encodeForLog(input, deps.signer);
      const chunks = produceChunks(batch, input.sessionId);
      try {
        if (chunks.length > 0) await connect();
        if (chunks.length > 0 && input.fromSeq === 0 && input.parentId === null) await deps.beforeTreeStarts?.(input.rootId);
        // acks=all: acknowledged only once every in-sync replica holds the records, so on a replicated
        // topic (min.insync.replicas=2) losing the leader cannot lose an append the workflow saw succeed.
        for (const chunk of chunks) await producer.send({ topic: deps.topic, acks: -1, messages: chunk });
      } catch (cause) {
        throw appendError(cause, deps.topic, batch);
      }
      deps.onAppended?.(batch.records);
      return appendedBatch(batch);
    },
  };
}

/**
 * A batch as the log writes it: each event held to its field limits (schemas/field-limits.ts; the
 * last net under every writer, so a value some path forgot to offload is cut, never fatal to the
 * append), sealed by `signer`. Encoding a batch in parts, each continuing the last, gives the
 * same records as encoding it whole.
 */
export function encodeForLog(input: AppendEventsInput, signer: EventSigner): EncodedBatch {
  return encodeEventBatch({ ...input, events: input.events.map((e) => ({ ...e, event: clipEvent(e.event) })) }, signer);
}

/** An encoded batch's records as Kafka messages keyed by sessionId, in chunks that each fit a produce request. */
export function produceChunks(batch: EncodedBatch, sessionId: string): Message[][] {
  return chunkBySize(batch.values.map((value, i) => ({ key: sessionId, value, timestamp: String(batch.records[i].ts) })));
}

/** What a failed write of `batch` is reported as: retryable unless the broker's answer cannot change. */
export function appendError(cause: unknown, topic: string, batch: EncodedBatch): EventLogError {
  const type = brokerErrorIn(cause, PERMANENT);
  // An idempotent producer asks for a producer id first, so a read-only principal hears "cluster" denied.
  const denied = type?.endsWith('_AUTHORIZATION_FAILED');
  const eventIds = batch.records.map((r) => r.eventId).join(', ');
  return new EventLogError(`append of ${eventIds} to ${topic} failed: ${denied ? `this Kafka principal may not write to ${topic} (${type})` : (cause as Error).message}`, {
    cause,
    retryable: type === undefined,
    hint: denied ? "only the worker's Kafka principal appends to the event log; readers (CLI, daemon, audit, projector) are read-only" : undefined,
  });
}

function chunkBySize(messages: Message[]): Message[][] {
  const chunks: Message[][] = [];
  let current: Message[] = [];
  let size = 0;
  for (const m of messages) {
    const bytes = (m.value as Buffer).length;
    if (current.length > 0 && size + bytes > MAX_REQUEST_BYTES) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(m);
    size += bytes;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** The first of `types` found in a kafkajs error, which wraps the broker's code (retries exhausted, non-retriable) a level or two deep. */
export function brokerErrorIn(err: unknown, types: ReadonlySet<string>): string | undefined {
  let e = err as { type?: string; cause?: unknown; originalError?: unknown } | undefined;
  for (let depth = 0; e && depth < 4; depth++) {
    if (e.type && types.has(e.type)) return e.type;
    e = (e.originalError ?? e.cause) as typeof e;
  }
  return undefined;
}
