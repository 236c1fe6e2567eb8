import type { CellExecuted, CellRequested, StoredEvent } from '../../schemas';
import { outcomeOf } from '../model/outcome';
import { CodeBlock } from './code-block';

interface Props {
  event: StoredEvent<CellRequested | CellExecuted>;
  select(eventId: string): void;
}

/** A cell's code, highlighted, and for its result the outputs, status and time it took. */
export function CellDetail({ event, select }: Props) {
  const ev = event.event;
  if (ev.type === 'CellRequested') {
    return (
      <section>
        <p>cell <code>{ev.cellId}</code>{ev.toolCallId && <> for tool call <code>{ev.toolCallId}</code></>}{ev.codeBlob && ' · preview; the whole source is its codeBlob'}</p>
        <CodeBlock code={ev.code} testId="cell-code" />
      </section>
    );
  }
  return (
    <section>
      <p>
        <span class={`status outcome-${outcomeOf(ev.status)}`}>{ev.status}</span> in {(ev.durationMs / 1000).toFixed(3)} s
        {ev.executionCount !== null && ` · [${ev.executionCount}]`} · answers{' '}
        <button type="button" class="link" onClick={() => select(ev.requestId)}>{ev.requestId}</button>
      </p>
      <CodeBlock code={ev.code} testId="cell-code" />
      <h4>Output{ev.outputsBlob && ' (cut; the whole is its outputsBlob below)'}</h4>
      <pre class="text" data-testid="cell-output">{ev.outputs || '(none)'}</pre>
      {ev.errorName && <p class="error">{ev.errorName}: {ev.errorValue}</p>}
      {ev.traceback && <pre class="text traceback">{ev.traceback}</pre>}
    </section>
  );
}
