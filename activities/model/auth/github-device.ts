import { ProviderError } from '../../../errors';
import { authRequest, cancelled, field, realSleep } from './auth-http';
import type { LoginDeps } from './login-flow';

/** GitHub's device flow (RFC 8628): what `slow_down` adds to the interval. */
const SLOW_DOWN_MS = 5_000;

/**
 * GitHub's OAuth device flow: ask for a device and user code, show the code, then poll the token
 * endpoint at the interval GitHub names until the user approves (`authorization_pending` meanwhile,
 * `slow_down` backs off), the code expires or the user declines. Returns the GitHub OAuth token.
 */
export async function githubDeviceLogin(provider: string, githubUrl: string, clientId: string, deps: LoginDeps): Promise<string> {
  const sleep = deps.sleep ?? realSleep;
  const code = await authRequest(provider, `${githubUrl}/login/device/code`, { json: { client_id: clientId, scope: 'read:user' }, signal: deps.signal });
  if (code.status !== 200) throw new ProviderError(provider, `device code request failed: HTTP ${code.status}`, code.status, { retryable: false });
  const deviceCode = field(provider, code, 'device_code', 'device code request');
  deps.onPrompt({ verificationUrl: field(provider, code, 'verification_uri', 'device code request'), userCode: field(provider, code, 'user_code', 'device code request') });
  let intervalMs = Number(code.body?.interval ?? 5) * 1000;
  const deadline = Date.now() + Number(code.body?.expires_in ?? 900) * 1000;
  for (;;) {
    try {
      await sleep(intervalMs, deps.signal);
    } catch {
      throw cancelled(provider);
    }
    if (Date.now() > deadline) throw expired(provider);
    const poll = await authRequest(provider, `${githubUrl}/login/oauth/access_token`, {
      json: { client_id: clientId, device_code: deviceCode, grant_type: 'urn:ietf:params:oauth:grant-type:device_code' },
      signal: deps.signal,
    });
    const token = poll.body?.access_token;
    if (typeof token === 'string' && token !== '') return token;
    const error = poll.body?.error;
    if (error === 'authorization_pending') continue;
    if (error === 'slow_down') {
      // GitHub names the new interval; RFC 8628 says add 5 s when it does not.
      intervalMs = typeof poll.body?.interval === 'number' ? poll.body.interval * 1000 : intervalMs + SLOW_DOWN_MS;
      continue;
    }
    if (error === 'expired_token') throw expired(provider);
    if (error === 'access_denied') throw new ProviderError(provider, 'login denied: the request was declined on GitHub', undefined, { retryable: false });
    throw new ProviderError(provider, `device login failed: HTTP ${poll.status}${typeof error === 'string' ? ` ${error}` : ''}`, poll.status, { retryable: false });
  }
}

function expired(provider: string): ProviderError {
  return new ProviderError(provider, 'the device code expired before it was approved; run `recur login` again', undefined, { retryable: false });
}
