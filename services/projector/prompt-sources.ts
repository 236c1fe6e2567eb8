import type { StoredEvent } from '../../schemas';

/** Looks up what the prompt behind a ModelCalled event was rebuilt from; undefined for other events. */
export type PromptSources = (modelCalledEventId: string) => readonly StoredEvent[] | undefined;

/** The events activities/prompt/build-prompt.ts turns into prompt messages. */
function feedsPrompt(e: StoredEvent): boolean {
  switch (e.event.type) {
    case 'SessionStarted':
    case 'ModelCalled':
    case 'CellExecuted':
    case 'ForkedFrom':
    case 'ReplyRejected':
      return true;
    case 'MessageDelivered':
      return e.event.via === 'prompt';
    default:
      return false;
  }
}

/**
 * Provenance of every prompt in a tree: a model call's prompt is rebuilt from its own session's
 * log before it, i.e. the task, earlier model replies, earlier cell results, the notes on rejected replies and the messages
 * delivered via the prompt. Each session's feeding events only grow, so one list per session and
 * a cut-off per call hold it all. What the call read from the workspace (AGENTS.md, CLAUDE.md) is
 * not in the log before it but in the call's own ModelCalled.contextFiles, by hash and blob. Pure.
 */
export function promptSources(events: readonly StoredEvent[]): PromptSources {
  const feeding = new Map<string, StoredEvent[]>();
  const cut = new Map<string, { list: StoredEvent[]; upTo: number }>();
  for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
    const list = feeding.get(e.sessionId) ?? [];
    feeding.set(e.sessionId, list);
    if (e.type === 'ModelCalled') cut.set(e.eventId, { list, upTo: list.length });
    if (feedsPrompt(e)) list.push(e);
  }
  return (id) => {
    const c = cut.get(id);
    return c && c.list.slice(0, c.upTo);
  };
}
