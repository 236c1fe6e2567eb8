import type { StoredEvent } from '../schemas';

/** `<child>#outcome` for a child's first task, `<child>#outcome-<round>` for a retained child's later ones. */
const OUTCOME_ID = /^(.*)#outcome(?:-(\d+))?$/;

const isEnd = (e: StoredEvent): boolean => e.type === 'SessionCompleted' || e.type === 'SessionFailed';

/** (ts, sessionId, seq): the order among events no causal link orders. */
function before(a: StoredEvent, b: StoredEvent): boolean {
  if (a.ts !== b.ts) return a.ts < b.ts;
  if (a.sessionId !== b.sessionId) return a.sessionId < b.sessionId;
  return a.seq < b.seq;
}

/**
 * For each event, the eventId it must follow besides its session predecessor: a child's first
 * event follows the parent's SubagentSpawned for it; a MessageDelivered follows its MessageSent
 * or SubagentTasked (a `<child>#outcome[-<round>]` delivery follows the child's SessionCompleted,
 * SessionFailed or TaskEnded of that round); a SubagentCompleted follows the child's end.
 */
function causeIndex(sessions: ReadonlyMap<string, readonly StoredEvent[]>): Map<string, string> {
  const spawnOf = new Map<string, string>();
  const sentOf = new Map<string, string>();
  const endOf = new Map<string, string>();
  for (const events of sessions.values()) {
    for (const e of events) {
      if (e.event.type === 'SubagentSpawned' && !spawnOf.has(e.event.childId)) spawnOf.set(e.event.childId, e.eventId);
      // A new task for a retained child travels as a message too.
      if ((e.event.type === 'MessageSent' || e.event.type === 'SubagentTasked') && !sentOf.has(e.event.messageId)) sentOf.set(e.event.messageId, e.eventId);
      if (isEnd(e) && !endOf.has(e.sessionId)) endOf.set(e.sessionId, e.eventId);
      if (e.event.type === 'TaskEnded') endOf.set(`${e.sessionId}#${e.event.round}`, e.eventId);
    }
  }
  const causes = new Map<string, string>();
  const link = (e: StoredEvent, cause: string | undefined): void => {
    if (cause !== undefined) causes.set(e.eventId, cause);
  };
  for (const [sessionId, events] of sessions) {
    if (events.length > 0) link(events[0], spawnOf.get(sessionId));
    for (const e of events) {
      const ev = e.event;
      if (ev.type === 'MessageDelivered') {
        const outcome = OUTCOME_ID.exec(ev.messageId);
        const endKey = outcome && (outcome[2] === undefined ? outcome[1] : `${outcome[1]}#${outcome[2]}`);
        link(e, sentOf.get(ev.messageId) ?? (endKey ? endOf.get(endKey) : undefined));
      }
      if (ev.type === 'SubagentCompleted') link(e, endOf.get(ev.childId));
    }
  }
  return causes;
}

function bySession(events: readonly StoredEvent[]): Map<string, StoredEvent[]> {
  const sessions = new Map<string, StoredEvent[]>();
  for (const e of events) {
    const list = sessions.get(e.sessionId) ?? [];
    sessions.set(e.sessionId, list);
    list.push(e);
  }
  for (const list of sessions.values()) list.sort((a, b) => a.seq - b.seq);
  return sessions;
}

type Head = { list: readonly StoredEvent[]; at: number };

/** A binary min-heap of session heads by their next event's (ts, sessionId, seq). */
class HeadHeap {
  private readonly items: Head[] = [];
  private less(i: number, j: number): boolean {
    return before(this.items[i].list[this.items[i].at], this.items[j].list[this.items[j].at]);
  }
  private swap(i: number, j: number): void {
    [this.items[i], this.items[j]] = [this.items[j], this.items[i]];
  }
  push(head: Head): void {
    this.items.push(head);
    for (let i = this.items.length - 1; i > 0 && this.less(i, (i - 1) >> 1); i = (i - 1) >> 1) this.swap(i, (i - 1) >> 1);
  }
  pop(): Head | undefined {
    const top = this.items[0];
    const last = this.items.pop();
    if (this.items.length === 0 || last === undefined) return top;
    this.items[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const m = l + 1 < this.items.length && this.less(l + 1, l) ? l + 1 : l;
      if (m >= this.items.length || !this.less(m, i)) return top;
      this.swap(i, m);
      i = m;
    }
  }
}

/**
 * The merge itself: from each session's list at `from` (its events before that are already
 * placed, in `done`), repeatedly the earliest event free to go next; when none is free (a cycle),
 * the earliest waiting one. Heads free to go wait in a heap and the others under their cause, so
 * a tree of many sessions merges in O(n log sessions), not O(n × sessions).
 */
function merge(sessions: ReadonlyMap<string, readonly StoredEvent[]>, causes: ReadonlyMap<string, string>, done: Set<string>, from: ReadonlyMap<string, number>): StoredEvent[] {
  const ready = new HeadHeap();
  /** Heads whose next event waits for its cause, and, by cause, the heads at the event waiting for it. */
  const waiting = new Set<Head>();
  const blocked = new Map<string, Array<{ head: Head; at: number }>>();
  const place = (head: Head): void => {
    const e = head.list[head.at];
    if (!e) return;
    const cause = causes.get(e.eventId);
    if (cause === undefined || done.has(cause)) return ready.push(head);
    waiting.add(head);
    const list = blocked.get(cause) ?? [];
    blocked.set(cause, list);
    list.push({ head, at: head.at });
  };
  let count = 0;
  for (const [sessionId, list] of sessions) {
    const head = { list, at: from.get(sessionId) ?? 0 };
    count += list.length - head.at;
    place(head);
  }
  const out: StoredEvent[] = [];
  while (out.length < count) {
    let next = ready.pop();
    if (!next) {
      for (const head of waiting) if (!next || before(head.list[head.at], next.list[next.at])) next = head;
      waiting.delete(next!);
    }
    const e = next!.list[next!.at++];
    done.add(e.eventId);
    out.push(e);
    for (const { head, at } of blocked.get(e.eventId) ?? []) {
      if (head.at === at && waiting.delete(head)) ready.push(head);
    }
    blocked.delete(e.eventId);
    place(next!);
  }
  return out;
}

/**
 * Merges a session tree's logs into one causal order: each session's events stay in seq order,
 * and an event whose cause (see causeIndex) is in the tree comes after that cause; among the
 * events free to go next, the earliest by (ts, sessionId, seq) goes first. Links the log should
 * never hold (a cycle, from a corrupt or forged log) cannot all be honoured; then the earliest
 * waiting event goes next anyway, so the merge always ends and stays deterministic. Pure.
 */
export function causalOrder(events: readonly StoredEvent[]): StoredEvent[] {
  const sessions = bySession(events);
  return merge(sessions, causeIndex(sessions), new Set(), new Map());
}

/**
 * `causalOrder([...order, ...fresh])` for `order` already a causal order and `fresh` later events
 * of the same tree (each past its session's last in `order`), as a live reader receives them. When
 * the merge of the whole would place every event of `order` as before (each follows its cause
 * there, none waits on a fresh event) and no fresh event could go before one of `order` placed
 * after it became free, the fresh events are merged after `order` alone, without re-merging the
 * tree; otherwise the whole is merged again. Either way the result is the same. Pure.
 */
export function extendCausalOrder(order: readonly StoredEvent[], fresh: readonly StoredEvent[]): StoredEvent[] {
  const whole = (): StoredEvent[] => causalOrder([...order, ...fresh]);
  // `order` keeps each session in seq order, so the sessions' lists are its events then the fresh ones by seq.
  const sessions = new Map<string, StoredEvent[]>();
  const placed = new Map<string, number>();
  for (const e of order) {
    const list = sessions.get(e.sessionId) ?? [];
    sessions.set(e.sessionId, list);
    list.push(e);
  }
  for (const [sessionId, list] of sessions) placed.set(sessionId, list.length);
  for (const e of [...fresh].sort((a, b) => a.seq - b.seq)) {
    const list = sessions.get(e.sessionId) ?? [];
    sessions.set(e.sessionId, list);
    if (list.length > 0 && list[list.length - 1].seq >= e.seq) return whole();
    list.push(e);
  }
  // A cause the fresh events add for an event of `order` is itself fresh, so it shows as a cause not placed before.
  const causes = causeIndex(sessions);
  const linked = new Set([...causes.keys(), ...causes.values()]);
  const at = new Map<string, number>();
  const lastAt = new Map<string, number>();
  for (let i = 0; i < order.length; i++) {
    const e = order[i];
    lastAt.set(e.sessionId, i);
    if (!linked.has(e.eventId)) continue;
    at.set(e.eventId, i);
    const cause = causes.get(e.eventId);
    if (cause !== undefined && !((at.get(cause) ?? Infinity) < i)) return whole();
  }
  const done = new Set<string>();
  const freeAt = fresh.map((e) => {
    const cause = causes.get(e.eventId);
    if (cause !== undefined && at.has(cause)) done.add(cause);
    return Math.max(lastAt.get(e.sessionId) ?? -1, cause === undefined ? -1 : at.get(cause) ?? -1) + 1;
  });
  // latestFrom[i]: the latest by (ts, sessionId, seq) of order[i..]. A fresh event free from step i
  // on that goes before it would have been picked there instead.
  const latestFrom: Array<StoredEvent | undefined> = new Array(order.length + 1);
  const first = freeAt.reduce((a, b) => Math.min(a, b), order.length);
  for (let i = order.length - 1; i >= first; i--) {
    const later = latestFrom[i + 1];
    latestFrom[i] = later && before(order[i], later) ? later : order[i];
  }
  if (fresh.some((e, i) => {
    const rival = latestFrom[freeAt[i]];
    return rival !== undefined && before(e, rival);
  })) return whole();
  return [...order, ...merge(sessions, causes, done, placed)];
}
