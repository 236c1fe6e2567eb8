import type { BundleViewInfo } from '../../services/daemon/api-types';
import type { BundleVerdict } from '../../services/projector/bundle/verify-bundle';
import { useUiInfo } from '../state/hooks';
import type { SessionViewProps } from '../state/types';
import './views.css';

/**
 * For a bundle: which keys the verdict rests on, with their fingerprints to compare out of band,
 * and when it was computed. A bundle's own keys prove nothing about who wrote it, and the page says so.
 */
function BundleKeys(props: { bundle: BundleViewInfo }) {
  const { keys, verifiedAt } = props.bundle;
  const given = keys.source === 'given';
  return (
    <div class={`bundle-keys ${given ? '' : 'warn'}`} data-testid="verify-keys" data-source={keys.source}>
      <p>
        {given
          ? 'Signatures checked against the public key(s) given with --pubkey:'
          : "Signatures checked only against the public key(s) carried in the bundle: that proves only that the bundle is self-consistent, not who wrote it. Give a key you trust with --pubkey."}
      </p>
      <ul>
        {keys.fingerprints.map((f) => <li key={f.keyId}><code>{f.keyId}</code> sha256 <code data-testid="key-fingerprint">{f.sha256}</code></li>)}
      </ul>
      {verifiedAt !== null && <p data-testid="verified-at">Verified when this file was exported, at {verifiedAt}; the page does not re-check it.</p>}
    </div>
  );
}

/** The tree's verification from the raw log: whether it holds, what it covered, and every fault. */
export function VerifyView(props: SessionViewProps) {
  const v = props.verdict;
  const bundle = useUiInfo().bundle;
  // An export's verdict is fixed in the file: re-checking would only show it again.
  const recheck = bundle?.verifiedAt ? null : <button type="button" data-testid="verify-recheck" onClick={() => props.recheck()}>Re-check</button>;
  if (!v) return <div class="view verify-view"><p class="dim">Verifying…</p>{recheck}</div>;
  const keys = Object.entries(v.signedBy);
  // A bundle's verdict checks its blobs too.
  const blobs = 'blobs' in v ? (v as BundleVerdict).blobs : null;
  // Selecting from this tab opens the event in the timeline (the session page's select).
  const open = (eventId: string | null) => eventId !== null && props.select(eventId);
  return (
    <div class="view verify-view">
      <div class={`verify-result ${v.ok ? 'ok' : 'bad'}`} data-testid="verify-result" data-ok={String(v.ok)}>
        <h3>{v.ok ? 'The log verifies' : `${v.faults.length} fault${v.faults.length === 1 ? '' : 's'} found`}</h3>
        <p>
          {v.sessions.length} session{v.sessions.length === 1 ? '' : 's'} · {v.events.toLocaleString('en-US')} events · {v.duplicates} exact duplicate(s) dropped
          {v.resealed > 0 && ` · ${v.resealed} resealed`}
        </p>
        <p>
          signed by {keys.length === 0 ? <span class="warn">no known key</span> : keys.map(([k, n]) => <span key={k} class="key"><code>{k}</code> ({n})</span>)}
        </p>
        {blobs && <p data-testid="verify-blobs">blobs: {blobs.present} of {blobs.needed} the events name are in the bundle, each checked against its hash</p>}
        {recheck}
      </div>
      {bundle && <BundleKeys bundle={bundle} />}
      {v.faults.length > 0 && (
        <table class="grid faults">
          <thead><tr><th>fault</th><th>event</th><th>detail</th></tr></thead>
          <tbody>
            {v.faults.map((f, i) => (
              <tr
                key={i}
                class="verify-fault"
                data-testid="verify-fault"
                data-event={f.eventId ?? ''}
                tabIndex={f.eventId === null ? undefined : 0}
                onClick={() => open(f.eventId)}
                onKeyDown={(ev) => ev.key === 'Enter' && open(f.eventId)}
              >
                <td>{f.fault}</td>
                <td>
                  {f.eventId === null ? <span class="dim">{f.sessionId ?? '—'}</span> : <code>{f.eventId}</code>}
                </td>
                <td>{f.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <table class="grid sessions">
        <thead><tr><th>session</th><th>events</th><th>ended</th><th>head</th></tr></thead>
        <tbody>
          {v.sessions.map((s) => <tr key={s.sessionId}><td><code>{s.sessionId}</code></td><td>{s.events}</td><td>{s.ended ?? 'open'}</td><td><code>{s.headHash.slice(0, 12)}</code></td></tr>)}
        </tbody>
      </table>
    </div>
  );
}
