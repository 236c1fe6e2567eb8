import type { SpanContext } from '@opentelemetry/api';
import { sessionsDelta, stampEventTrace } from '../../observability';
import { seqOfEventId } from '../../observability/event-trace';
import { ZERO_HASH, encodeEventBatch } from '../../schemas';
import type { AppendEventsInput } from '../../activities/event-log';

const span: SpanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };

function batch(events: AppendEventsInput['events']): AppendEventsInput {
  return { sessionId: 's1', rootId: 's1', parentId: null, fromSeq: 0, prevHash: ZERO_HASH, events };
}
const started = { type: 'SessionStarted' as const, task: 't', name: 'root', model: 'scripted:x', parentId: null, depth: 0, maxDepth: 2, maxTurns: 5, cellTimeoutSeconds: 60 };
const completed = { type: 'SessionCompleted' as const, answer: '42' };

describe('stamping events with the trace that appended them', () => {
  it('gives events without ids the span\'s trace and span id, and keeps ids a caller supplied', () => {
    const own = { traceId: 'f'.repeat(32), spanId: 'e'.repeat(16) };
    const out = stampEventTrace(batch([{ ts: 1, event: started }, { ts: 2, ...own, event: completed }]), span);
    expect(out.events.map((e) => [e.traceId, e.spanId])).toEqual([[span.traceId, span.spanId], [own.traceId, own.spanId]]);
  });

  it('keeps null ids (a batch that rode an activity, written the same by whichever append writes it)', () => {
    const rode = { ts: 2, traceId: null, spanId: null, event: completed };
    const out = stampEventTrace(batch([{ ts: 1, event: started }, rode]), span);
    expect(out.events.map((e) => [e.traceId, e.spanId])).toEqual([[span.traceId, span.spanId], [null, null]]);
    expect(Buffer.compare(encodeEventBatch(batch([rode])).values[0], encodeEventBatch(stampEventTrace(batch([rode]), span)).values[0])).toBe(0);
  });

  it('leaves the batch as it is without a valid span', () => {
    const input = batch([{ ts: 1, event: started }]);
    expect(stampEventTrace(input, undefined)).toBe(input);
    expect(stampEventTrace(input, { traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 })).toBe(input);
  });

  it('puts the ids into the encoded envelope, identically on a retried append', () => {
    const input = batch([{ ts: 1, event: started }]);
    const first = encodeEventBatch(stampEventTrace(input, span));
    const retry = encodeEventBatch(stampEventTrace(input, { ...span }));
    expect(first.records[0]).toMatchObject({ traceId: span.traceId, spanId: span.spanId });
    expect(Buffer.compare(first.values[0], retry.values[0])).toBe(0);
    expect(first.headHash).not.toBe(encodeEventBatch(input).headHash);
  });
});

describe('counting active sessions from appended events', () => {
  it('adds one per SessionStarted and removes one per SessionCompleted or SessionFailed', () => {
    expect(sessionsDelta(batch([{ ts: 1, event: started }]))).toBe(1);
    expect(sessionsDelta(batch([{ ts: 1, event: completed }]))).toBe(-1);
    expect(sessionsDelta(batch([{ ts: 1, event: { type: 'SessionFailed', kind: 'budget', reason: 'x' } }]))).toBe(-1);
    expect(sessionsDelta(batch([{ ts: 1, event: started }, { ts: 2, event: completed }]))).toBe(0);
  });

  it('reads the seq at the end of an event id', () => {
    expect(seqOfEventId('root/kid/7')).toBe(7);
    expect(seqOfEventId('root')).toBeUndefined();
  });
});
