import type { HarnessEdited, StoredEvent } from '../../schemas';
import { outcomeOf } from '../model/outcome';
import { lineDiff, prettyJson } from '../model/diff';

/** A harness edit: what asked for it, its outcome, and its entry before and after as a line diff. */
export function HarnessDetail({ event, select }: { event: StoredEvent<HarnessEdited>; select(eventId: string): void }) {
  const ev = event.event;
  return (
    <section>
      <p>
        {ev.action} <code>{ev.kind}/{ev.name}</code> · <span class={`status outcome-${outcomeOf(ev.result)}`}>{ev.result}</span> · by {ev.source}
        {ev.requestedBy && <> for <code>{ev.requestedBy}</code></>}
        {ev.revertOf && <> · reverts <code>{ev.revertOf}</code></>}
      </p>
      {ev.error && <p class="error">{ev.error}</p>}
      <p>
        why: {ev.trigger.reason || <span class="dim">not given</span>}
        {ev.trigger.eventIds.map((id) => <button type="button" class="link cite" key={id} onClick={() => select(id)}>{id}</button>)}
      </p>
      <pre class="diff" data-testid="harness-diff">
        {lineDiff(prettyJson(ev.before), prettyJson(ev.after)).map((l, i) => (
          <div key={i} class={`diff-${l.kind}`}>{l.kind === 'add' ? '+' : l.kind === 'del' ? '-' : ' '}{l.text}</div>
        ))}
      </pre>
    </section>
  );
}
