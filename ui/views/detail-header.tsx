import type { StoredEvent } from '../../schemas';
import { temporalLink, traceLink } from '../model/links';
import type { UiInfo } from '../state/types';

/** Who logged the event, when, and how it is chained and sealed; links to its trace and its workflow. */
export function DetailHeader({ event, info }: { event: StoredEvent; info: UiInfo }) {
  const trace = event.traceId === null ? null : traceLink(info, event.traceId);
  const temporal = temporalLink(info, event.sessionId);
  return (
    <dl class="detail-head">
      <dt>event</dt><dd><code>{event.eventId}</code></dd>
      <dt>type</dt><dd>{event.type}</dd>
      <dt>session</dt><dd><code>{event.sessionId}</code> #{event.seq}</dd>
      <dt>time</dt><dd>{new Date(event.ts).toISOString()}</dd>
      <dt>hash</dt><dd><code title={event.hash}>{event.hash.slice(0, 16)}</code> (prev <code title={event.prevHash}>{event.prevHash.slice(0, 8)}</code>)</dd>
      <dt>signed</dt><dd>{event.keyId === null ? <span class="warn">unsigned</span> : <code>key {event.keyId}</code>}</dd>
      <dt>trace</dt>
      <dd data-testid="trace-id">
        {event.traceId === null ? <span class="dim">none</span> : trace ? <a href={trace} target="_blank" rel="noopener noreferrer">{event.traceId}</a> : <code>{event.traceId}</code>}
      </dd>
      {temporal && (<><dt>workflow</dt><dd><a href={temporal} target="_blank" rel="noopener noreferrer">Temporal UI</a></dd></>)}
    </dl>
  );
}
