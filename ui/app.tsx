/**
 * The viewer's frame: signs in from a `recur ui` link, then routes on the fragment between the
 * sessions list and a session page. A 401 from anywhere replaces everything with the signed-out notice.
 */
import { useEffect, useState } from 'preact/hooks';
import { markSignedOut, postJson } from './state/api';
import { useRoute, useSignedOut } from './state/hooks';
import { loginFromFragment } from './state/login';
import { SessionPage } from './views/session-page';
import { SessionsView } from './views/sessions';

function SignedOut() {
  return (
    <div class="signed-out" data-testid="signed-out">
      <h1>Signed out</h1>
      <p>This viewer session has ended or its link was already used. Run <code>recur ui</code> for a new link.</p>
    </div>
  );
}

function TopBar() {
  const signOut = (): void => {
    void postJson('/ui/logout', {}).finally(markSignedOut);
  };
  return (
    <header class="topbar">
      <a class="brand" href="#/">recur <span>audit viewer</span></a>
      <button type="button" class="quiet" onClick={signOut}>Sign out</button>
    </header>
  );
}

export function App() {
  const [ready, setReady] = useState(false);
  const signedOut = useSignedOut();
  const route = useRoute();
  useEffect(() => {
    loginFromFragment().catch(() => undefined).finally(() => setReady(true));
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
