import type { StoredEvent } from '../../schemas';

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

type Head = { list: StoredEvent[]; at: number };

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
 * Merges a session tree's logs into one causal order: each session's events stay in seq order,
 * and an event whose cause (see causeIndex) is in the tree comes after that cause; among the
 * events free to go next, the earliest by (ts, sessionId, seq) goes first. Links the log should
 * never hold (a cycle, from a corrupt or forged log) cannot all be honoured; then the earliest
 * waiting event goes next anyway, so the merge always ends and stays deterministic. Pure.
 * Heads free to go wait in a heap and the others under their cause, so a tree of many sessions
 * merges in O(n log sessions), not O(n × sessions).
 */
export function causalOrder(events: readonly StoredEvent[]): StoredEvent[] {
  const sessions = new Map<string, StoredEvent[]>();
  for (const e of events) {
    const list = sessions.get(e.sessionId) ?? [];
    sessions.set(e.sessionId, list);
    list.push(e);
  }
  for (const list of sessions.values()) list.sort((a, b) => a.seq - b.seq);
  const causes = causeIndex(sessions);
  const done = new Set<string>();
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
  for (const list of sessions.values()) place({ list, at: 0 });
  const out: StoredEvent[] = [];
  while (out.length < events.length) {
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
