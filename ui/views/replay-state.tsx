import type { HarnessEntry } from '../model/harness-state';
import { against, type BudgetLine } from '../model/budget';
import type { ReplayState } from '../model/replay';
import { shortName } from '../model/rows';
import { useManifest } from './use-manifest';

interface Props {
  state: ReplayState;
  harness: readonly HarnessEntry[];
  budget: readonly BudgetLine[];
}

const cut = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function Variables({ state }: { state: ReplayState }) {
  const snap = state.snapshot;
  const manifest = useManifest(snap ? snap.event.manifest.sha256 : null);
  if (!snap) return <p class="dim">no kernel snapshot yet</p>;
  return (
    <>
      <p class="dim">snapshot {snap.eventId} of {shortName(snap.sessionId)}, covering #{snap.event.coversSeq}</p>
      {manifest && 'loading' in manifest && <p class="dim">loading the manifest…</p>}
      {manifest && 'error' in manifest && <p class="error">{manifest.error}</p>}
      {manifest && 'names' in manifest && (
        <ul class="names">
          {manifest.names.variables.map((n) => <li key={`v${n}`}><code>{n}</code></li>)}
          {manifest.names.modules.map((n) => <li key={`m${n}`}><code>{n}</code> <span class="dim">module</span></li>)}
          {manifest.names.missing.map((n) => <li key={`x${n}`}><code>{n}</code> <span class="warn">not saved</span></li>)}
        </ul>
      )}
    </>
  );
}

/** What the tree looked like as of the scrubber's event. */
export function ReplayStatePanel({ state, harness, budget }: Props) {
  return (
    <div class="replay-state" data-testid="replay-state">
      <section data-testid="replay-harness">
        <h4>Harness</h4>
        {harness.length === 0 ? <p class="dim">no entries</p> : (
          <table class="grid"><tbody>{harness.map((h) => <tr key={`${h.kind}/${h.name}`}><td>{h.kind}</td><td><code>{h.name}</code></td><td><code>{cut(h.value)}</code></td></tr>)}</tbody></table>
        )}
      </section>
      <section data-testid="replay-goal">
        <h4>Goal</h4>
        {state.goals.size === 0 ? <p class="dim">no goal</p> : [...state.goals].map(([sid, g]) => (
          <p key={sid}><code>{shortName(sid)}</code> {g.status}{g.openEnded ? ' (open-ended)' : ''}: {cut(g.objective)} · {g.tokensUsed.toLocaleString('en-US')} tok</p>
        ))}
      </section>
      <section data-testid="replay-children">
        <h4>Sub-agents</h4>
        {state.children.size === 0 ? <p class="dim">none spawned</p> : (
          <ul>{[...state.children].map(([id, status]) => <li key={id} data-session={id} data-status={status}><code>{id}</code> <span class={`status status-${status}`}>{status}</span></li>)}</ul>
        )}
      </section>
      <section data-testid="replay-budget">
        <h4>Spent</h4>
        {budget.map((b) => (
          <p key={b.sessionId}>
            <code>{shortName(b.sessionId)}</code> {against(b.spent.tokensIn + b.spent.tokensOut, b.budget?.tokens, 'tok')} · {against(b.spent.costUsd, b.budget?.costUsd, 'usd')} · {b.spent.calls} calls
            {b.budget && b.budget.turns !== null && ` of ${b.budget.turns}`}
          </p>
        ))}
      </section>
      <section data-testid="replay-variables">
        <h4>Kernel variables</h4>
        <Variables state={state} />
      </section>
    </div>
  );
}
