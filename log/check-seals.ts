import { checkSeal, computeEventHash, type Keyring, type SealFault, type StoredEvent } from '../schemas';
import type { EventConflict } from './event-collector';

export interface SealProblem {
  readonly fault: SealFault | 'conflict';
  readonly event: StoredEvent;
  readonly detail: string;
}

export interface SealReport {
  readonly problems: readonly SealProblem[];
  /** Events whose seal verified, by key id. */
  readonly signedBy: Readonly<Record<string, number>>;
  /** Copies of an event identical in content to the kept one, sealed by another known key (an append retried across a key rotation). */
  readonly resealed: number;
}

const site = (c: EventConflict) => `partition ${c.partition} offset ${c.offset}`;

function describe(fault: SealFault, e: StoredEvent, keys: Keyring): string {
  if (fault === 'unsigned') return 'no signature: no holder of a log key wrote this event';
  if (fault === 'unknown-key') return `signed by key ${e.keyId}, which is none of the ${keys.size} public key(s) given`;
  return `the signature does not verify under key ${e.keyId}`;
}

/**
 * Checks the seal of every event readers keep, and of every other copy of an id. Readers keep
 * the first copy, so a forger who lands a chained event before the genuine one wins it: the
 * forged copy is named by its seal, and the genuine, validly sealed copy is named as shadowed.
 * A second copy with the kept one's content, both sealed by known keys, is not a fault.
 */
export function checkSeals(sessions: ReadonlyMap<string, readonly StoredEvent[]>, conflicts: readonly EventConflict[], keys: Keyring): SealReport {
  const problems: SealProblem[] = [];
  const signedBy: Record<string, number> = {};
  const kept = new Map<string, { event: StoredEvent; fault: SealFault | null }>();
  for (const events of sessions.values()) {
    for (const e of events) {
      const fault = checkSeal(e, keys);
      kept.set(e.eventId, { event: e, fault });
      if (fault === null) signedBy[e.keyId!] = (signedBy[e.keyId!] ?? 0) + 1;
    }
  }
  const shadowed = new Map<string, EventConflict>();
  const copies: SealProblem[] = [];
  let resealed = 0;
  for (const c of conflicts) {
    const first = kept.get(c.eventId);
    const otherFault = checkSeal(c.other, keys);
    // A seal signs the hash field; only a copy whose content hashes to it is what the key's holder wrote.
    const intact = computeEventHash(c.other) === c.other.hash;
    const genuine = otherFault === null && intact;
    if (first?.fault === null && genuine && c.other.hash === c.keptHash) {
      resealed++;
      continue;
    }
    if (first && first.fault !== null && genuine) shadowed.set(c.eventId, c);
    const that = genuine ? `validly signed by key ${c.other.keyId}`
      : otherFault !== null ? describe(otherFault, c.other, keys) : 'its content does not hash to its hash field';
    copies.push({
      fault: 'conflict', event: c.other,
      detail: `another record (${site(c)}, hash ${c.otherHash}) claims this event with different bytes; kept hash ${c.keptHash}; that copy: ${that}`,
    });
  }
  for (const { event, fault } of kept.values()) {
    if (fault === null) continue;
    const genuine = shadowed.get(event.eventId);
    const shadow = genuine
      ? `; it shadows the copy at ${site(genuine)}, validly signed by key ${genuine.other.keyId}, because readers keep the first copy of an id`
      : '';
    problems.push({ fault, event, detail: describe(fault, event, keys) + shadow });
  }
  // The kept copy first: it is what every reader sees, so it is the event to name.
  return { problems: [...problems, ...copies], signedBy, resealed };
}
