import { useMemo } from 'preact/hooks';
import type { ModelCalled, StoredEvent } from '../../schemas';
import { eventFacts } from '../../services/cli/format-event';
import { promptSources } from '../../services/projector/prompt-sources';
import { harnessAt } from '../model/harness-state';
import type { SessionViewProps } from '../state/types';

/** What a model call's prompt was made of, and what the model answered. */
export function ModelDetail({ event, tree, select }: SessionViewProps & { event: StoredEvent<ModelCalled> }) {
  const ev = event.event;
  const sources = useMemo(() => promptSources(tree.events), [tree.version]);
  const from = sources(event.eventId) ?? [];
  const harness = useMemo(() => harnessAt(tree.harness, event.ts), [tree.version, event.ts]);
  return (
    <>
      <section data-testid="prompt-provenance">
        <h4>Prompt built from</h4>
        <p class="dim">Harness entries applied by then ({harness.length}):</p>
        <ul>{harness.map((h) => <li key={h.editId}><code>{h.kind}/{h.name}</code> <span class="dim">from edit {h.editId}</span></li>)}</ul>
        <p class="dim">Workspace instruction files ({ev.contextFiles.length}):</p>
        <ul>
          {ev.contextFiles.map((f) => (
            <li key={f.path}><code>{f.path}</code> sha256 <code title={f.sha256}>{f.sha256.slice(0, 16)}</code> {f.bytes.toLocaleString('en-US')} bytes{f.shown.size < f.bytes ? ` (first ${f.shown.size} shown)` : ''}</li>
          ))}
        </ul>
        <p class="dim">Log events the prompt was rebuilt from ({from.length}):</p>
        <ol class="sources">
          {from.map((e) => (
            <li key={e.eventId}><button type="button" class="link" onClick={() => select(e.eventId)}>#{e.seq} {e.type}</button> {eventFacts(e.event)}</li>
          ))}
        </ol>
      </section>
      <section data-testid="model-reply">
        <h4>Reply</h4>
        <p>turn {ev.turn} · {ev.provider}/{ev.model} · {ev.tokensIn}+{ev.tokensOut} tok{ev.usageSource === 'estimated' ? ' (estimated)' : ''} · ${ev.costUsd.toFixed(4)} · {ev.latencyMs} ms · stop {ev.stopReason}</p>
        <pre class="text">{ev.response}</pre>
        {ev.toolCalls.map((c) => (
          <div key={c.id}><p><code>{c.name}</code> tool call <code>{c.id}</code></p><pre class="text">{c.arguments}</pre></div>
        ))}
      </section>
    </>
  );
}
