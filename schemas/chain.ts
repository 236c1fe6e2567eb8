import { computeEventHash, type StoredEvent } from './codec';
import { ZERO_HASH } from './log-constants';

/** What can be wrong with a session's sequence of events, checked in this order per event. */
export type ChainFault = 'gap' | 'reorder' | 'duplicate' | 'prev-hash-mismatch' | 'hash-mismatch';

export interface ChainHead {
  readonly nextSeq: number;
  readonly headHash: string;
}

export type ChainVerdict =
  | { readonly ok: true; readonly heads: Readonly<Record<string, ChainHead>> }
  | {
      readonly ok: false;
      readonly eventId: string;
      readonly sessionId: string;
      readonly seq: number;
      readonly fault: ChainFault;
      readonly detail: string;
    };

/**
 * Checks events as given (one session or many, interleaved) and names the first bad one: each
 * session must run 0, 1, 2, ... with every prevHash equal to its predecessor's hash and every
 * hash equal to the hash recomputed from the event's content.
 */
export function verifyChain(events: readonly StoredEvent[]): ChainVerdict {
  const present = new Map<string, Set<number>>();
  for (const e of events) {
    const seqs = present.get(e.sessionId) ?? new Set<number>();
    present.set(e.sessionId, seqs.add(e.seq));
  }
  const heads: Record<string, ChainHead> = {};
  for (const e of events) {
    const head = heads[e.sessionId] ?? { nextSeq: 0, headHash: ZERO_HASH };
    const bad = (fault: ChainFault, detail: string): ChainVerdict => ({
      ok: false, eventId: e.eventId, sessionId: e.sessionId, seq: e.seq, fault, detail,
    });
    if (e.seq < head.nextSeq) return bad('duplicate', `seq ${e.seq} appears again after seq ${head.nextSeq - 1}`);
    if (e.seq > head.nextSeq) {
      return present.get(e.sessionId)?.has(head.nextSeq)
        ? bad('reorder', `seq ${e.seq} comes before seq ${head.nextSeq}`)
        : bad('gap', `seq ${head.nextSeq} is missing before seq ${e.seq}`);
    }
    if (e.prevHash !== head.headHash) {
      return bad('prev-hash-mismatch', `prevHash ${e.prevHash} but the previous event's hash is ${head.headHash}`);
    }
    const actual = computeEventHash(e);
    if (actual !== e.hash) return bad('hash-mismatch', `content hashes to ${actual}, event claims ${e.hash}`);
    heads[e.sessionId] = { nextSeq: e.seq + 1, headHash: e.hash };
  }
  return { ok: true, heads };
}
