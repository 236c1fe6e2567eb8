/**
 * The viewer's frame: picks its source (signing in from a `recur ui` or `recur view` link, or the
 * bundle an HTML export carries), then routes on the fragment between the sessions list and a
 * session page. A 401 from anywhere replaces everything with the signed-out notice.
 */
import { useEffect, useState } from 'preact/hooks';
import { markSignedOut, postJson } from './state/api';
import { useRoute, useSignedOut, useUiInfo } from './state/hooks';
import { source, startSource } from './state/source';
import { SessionPage } from './views/session-page';
import { SessionsView } from './views/sessions';

function SignedOut() {
  return (
    <div class="signed-out" data-testid="signed-out">
      <h1>Signed out</h1>
      <p>This viewer session has ended or its link was already used. Run <code>recur ui</code> (or <code>recur view BUNDLE</code>) for a new link.</p>
    </div>
  );
}

/** Which bundle the page shows, when it shows one: the auditor must never take it for a live log. */
function BundleBanner() {
  const bundle = useUiInfo().bundle;
  if (!bundle) return null;
  return (
    <span class="bundle-banner" data-testid="bundle-banner">
      audit bundle <code>{bundle.file}</code> · exported {bundle.exportedAt}
      {bundle.verifiedAt === null ? '' : ' · a file: its verdict is from the export'}
    </span>
  );
}

function TopBar() {
  const signOut = (): void => {
    void postJson('/ui/logout', {}).finally(markSignedOut);
  };
  return (
    <header class="topbar">
      <a class="brand" href="#/">recur <span>audit viewer</span></a>
      <BundleBanner />
      {source().signsIn ? <button type="button" class="quiet" onClick={signOut}>Sign out</button> : null}
    </header>
  );
}

export function App() {
  const [ready, setReady] = useState(false);
  const signedOut = useSignedOut();
  const route = useRoute();
  useEffect(() => {
    startSource().finally(() => setReady(true));
  }, []);
  if (signedOut) return <SignedOut />;
  if (!ready) return <p class="notice">Signing in…</p>;
  return (
    <>
      <TopBar />
      <main>{route.view === 'list' ? <SessionsView /> : <SessionPage route={route} />}</main>
    </>
  );
}
