/*
 * The tree route's body, written and read. Pure and free of Node's modules: the viewer's page
 * reads the body with the same code the daemon's tests do.
 */
import type { StoredEvent } from '../../schemas';
import { causalOrder } from '../../log/causal-order';
import type { LogReadResult } from '../../log/event-collector';
import type { ProblemFrame, TreeHead, TreeLine, TreeReply } from './api-types';
import { conflictFrame, undecodableFrame } from './problem-frames';

/** Events per TreeChunk: small enough that the first reaches a page at once, large enough that lines stay few. */
export const TREE_CHUNK = 1000;

/**
 * A causal merge of 100,000 events takes a tenth of a second; a tree read that found nothing new
 * hands back the same result object, so reopening it reuses the order.
 */
const ordered = new WeakMap<LogReadResult, readonly StoredEvent[]>();

function causallyOrdered(tree: LogReadResult): readonly StoredEvent[] {
  let events = ordered.get(tree);
  if (!events) ordered.set(tree, (events = causalOrder(tree.events)));
  return events;
}

/** The head line of a tree read: sizes, the harness log, the problems, the cursor. */
export function treeHead(view: { tree: LogReadResult; harness: LogReadResult }): TreeHead {
  const { tree, harness } = view;
  const counts: Record<string, number> = {};
  const cursor: Record<string, number> = {};
  for (const [sessionId, events] of tree.sessions) {
    counts[sessionId] = events.length;
    if (events.length > 0) cursor[sessionId] = events[events.length - 1].seq;
  }
  const problems: ProblemFrame[] = [
    ...tree.undecodable.map(undecodableFrame), ...tree.conflicts.map(conflictFrame),
    // A record without a key reached both readers; the tree's already reported it.
    ...harness.undecodable.filter((r) => r.key !== null).map(undecodableFrame), ...harness.conflicts.map(conflictFrame),
  ];
  return { kind: 'head', counts, harness: [...harness.events], problems, cursor };
}

/** The body of `GET /v1/sessions/:id/tree`, line by line; each line is made only when the writer asks for it. */
export function* treeLines(view: { tree: LogReadResult; harness: LogReadResult }): Generator<string> {
  yield JSON.stringify(treeHead(view));
  const events = causallyOrdered(view.tree);
  for (let i = 0; i < events.length; i += TREE_CHUNK) yield JSON.stringify({ kind: 'events', events: events.slice(i, i + TREE_CHUNK) } satisfies TreeLine);
  yield JSON.stringify({ kind: 'end' } satisfies TreeLine);
}

/** Builds the tree from its lines as they arrive; `reply()` once the end line is in. */
export class TreeAssembler {
  private head: TreeHead | null = null;
  private readonly events: StoredEvent[] = [];
  private ended = false;

  /** Takes one parsed line; throws on one out of order or of no known kind. */
  accept(line: TreeLine): void {
    if (this.ended) throw new Error('the tree reply goes on after its end line');
    if (line.kind === 'head' && this.head === null) this.head = line;
    else if (line.kind === 'events' && this.head !== null) for (const e of line.events) this.events.push(e);
    else if (line.kind === 'end' && this.head !== null) this.ended = true;
    else throw new Error(`unexpected ${JSON.stringify((line as { kind?: unknown }).kind)} line in the tree reply`);
  }

  /** The head, once it is in. */
  started(): TreeHead | null {
    return this.head;
  }

  /** The events in so far (the array grows as lines arrive). */
  received(): readonly StoredEvent[] {
    return this.events;
  }

  complete(): boolean {
    return this.ended;
  }

  reply(): TreeReply {
    if (!this.ended || !this.head) throw new Error('the tree reply was cut short (no end line)');
    const { harness, problems, cursor } = this.head;
    return { events: this.events, harness, problems, cursor };
  }
}

/** A whole tree body (as text) read at once. */
export function parseTreeBody(text: string): TreeReply {
  const tree = new TreeAssembler();
  for (const line of text.split('\n')) if (line.trim() !== '') tree.accept(JSON.parse(line) as TreeLine);
  return tree.reply();
}
