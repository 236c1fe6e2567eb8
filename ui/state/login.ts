/**
 * The `recur ui` link's sign-in: the one-time code rides in the fragment (never in a request
 * line or a referrer), is traded for the HttpOnly cookie, and is wiped from the address bar and
 * history right away, whether the trade worked or not.
 */
import { postJson } from './api';
import { loginCode } from './router';

/** Resolves once any login in the page's fragment is done; a refused code leaves the page signed out. */
export async function loginFromFragment(): Promise<void> {
  const code = loginCode(location.hash);
  if (code === null) return;
  try {
    await postJson('/ui/login', { code });
  } finally {
    history.replaceState(null, '', '/ui/#/');
  }
}
