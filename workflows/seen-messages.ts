/**
 * Which messages a session has already taken in, in bounded space. An agent's messages are
 * numbered per sender (`<sender>#m<n>`) and a sender sends one at a time, so they arrive in
 * order: the highest n seen per sender decides a repeat. Other ids (`recur send`, child outcomes)
 * are kept in a window of the latest ones; their repeats come from retries, close behind. Pure.
 */
export interface SeenCarry {
  /** Highest message number seen per sender session id. */
  high: Record<string, number>;
  /** Latest ids that carry no sender number, oldest first. */
  recent: string[];
}

/** Unnumbered ids kept; a retried `recur send` or a repeated outcome lands well within it. */
export const RECENT_IDS = 512;
const NUMBERED = /^(.+)#m(\d+)$/;

export class SeenMessages {
  private readonly high: Map<string, number>;
  private readonly recent: string[];
  private readonly recentSet: Set<string>;

  constructor(carry?: SeenCarry) {
    this.high = new Map(Object.entries(carry?.high ?? {}));
    this.recent = [...(carry?.recent ?? [])].slice(-RECENT_IDS);
    this.recentSet = new Set(this.recent);
  }

  /** Records `messageId`; false when it was seen before. */
  admit(messageId: string): boolean {
    const m = NUMBERED.exec(messageId);
    if (m) {
      const n = Number(m[2]);
      if (n <= (this.high.get(m[1]) ?? 0)) return false;
      this.high.set(m[1], n);
      return true;
    }
    if (this.recentSet.has(messageId)) return false;
    this.recent.push(messageId);
    this.recentSet.add(messageId);
    if (this.recent.length > RECENT_IDS) this.recentSet.delete(this.recent.shift()!);
    return true;
  }

  carry(): SeenCarry {
    return { high: Object.fromEntries(this.high), recent: [...this.recent] };
  }
}
