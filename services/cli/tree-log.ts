import type { StoredEvent } from '../../schemas';
import type { LogReply } from '../daemon/api-types';
import { sessionPath, type DaemonClient } from './daemon-client';

/** The daemon's pages of a session tree's log so far, first to last. */
export async function* treeLogPages(daemon: DaemonClient, sessionId: string): AsyncGenerator<LogReply> {
  let page = await daemon.get<LogReply>(sessionPath(sessionId, 'log'));
  yield page;
  while (page.more) {
    page = await daemon.get<LogReply>(`${sessionPath(sessionId, 'log')}?after=${encodeURIComponent(JSON.stringify(page.nextCursor))}`);
    yield page;
  }
}

/** Every event the tree has logged so far. */
export async function readTreeLog(daemon: DaemonClient, sessionId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const page of treeLogPages(daemon, sessionId)) events.push(...page.events);
  return events;
}
