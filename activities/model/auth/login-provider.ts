import { ProviderError } from '../../../errors';
import type { Env } from '../types';
import type { ModelProvider } from '../types';
import { CHATGPT } from './chatgpt';
import { COPILOT } from './copilot';
import type { LoginFlow } from './login-flow';
import { readLogin, writeLogin, type LoginName, type LoginRecord } from './login-store';

export const LOGIN_FLOWS: Record<LoginName, LoginFlow> = { chatgpt: CHATGPT, copilot: COPILOT };

/** Refreshed this long before the stated expiry, so a call that starts just in time is not cut off by a 401. */
const EXPIRY_MARGIN_MS = 60_000;

/** One refresh per login at a time in this process: OpenAI's refresh tokens are single-use, a second concurrent refresh would be refused. */
const refreshing = new Map<string, Promise<LoginRecord>>();

/**
 * The stored login with an access token good for a call: refreshed first when it is about to
 * expire, or when `stale` names the token a call was just refused with (a 401). The file is
 * read afresh each time, so a refresh another process wrote is used, not repeated.
 */
export async function usableLogin(dir: string, flow: LoginFlow, env: Env, stale?: string): Promise<LoginRecord> {
  const record = readLogin(dir, flow.name);
  if (!record) throw new ProviderError(flow.name, `not logged in; run \`recur login ${flow.name}\``, undefined, { retryable: false });
  if (record.rejected) throw refused(flow, record.rejected);
  const needsRefresh = stale !== undefined ? record.accessToken === stale : record.expiresAt !== null && record.expiresAt - Date.now() < EXPIRY_MARGIN_MS;
  if (!needsRefresh) return record;
  const key = `${dir}\0${flow.name}`;
  let pending = refreshing.get(key);
  if (!pending) {
    pending = refresh(dir, flow, record, env).finally(() => refreshing.delete(key));
    refreshing.set(key, pending);
  }
  return pending;
}

async function refresh(dir: string, flow: LoginFlow, record: LoginRecord, env: Env): Promise<LoginRecord> {
  const result = await flow.refresh(record, { env });
  if (!result.ok) {
    // Another process may have spent the same single-use refresh token first: its login stands.
    const now = readLogin(dir, flow.name);
    if (now && !now.rejected && now.refreshToken !== record.refreshToken) return now;
    writeLogin(dir, { ...record, rejected: result.rejected, updatedAt: Date.now() });
    throw refused(flow, result.rejected);
  }
  writeLogin(dir, result.record);
  return result.record;
}

function refused(flow: LoginFlow, why: string): ProviderError {
  return new ProviderError(flow.name, `the stored login was refused (${why}); run \`recur login ${flow.name}\` again`, 401, { retryable: false });
}

/** What a login-backed provider hands its wire module: where to call and with which headers. */
export interface CallAuth {
  baseUrl: string;
  headers: Record<string, string>;
}

/**
 * A provider that authenticates with a stored login and leaves the wire format to `wire`. The
 * token is fetched (and refreshed) before each call; a 401 refreshes once and repeats the call.
 */
export function createLoginProvider(
  flow: LoginFlow,
  cfg: { name: string; dir: string; env: Env; baseUrl: string; baseUrlOverride?: string; wire: (auth: CallAuth) => ModelProvider },
): ModelProvider {
  const call = (record: LoginRecord) => {
    const auth = flow.callAuth(record);
    return cfg.wire({ baseUrl: cfg.baseUrlOverride || auth.baseUrl || cfg.baseUrl, headers: auth.headers });
  };
  return {
    name: cfg.name,
    async complete(request) {
      const record = await usableLogin(cfg.dir, flow, cfg.env);
      try {
        return await call(record).complete(request);
      } catch (e) {
        if (!(e instanceof ProviderError) || e.status !== 401) throw e;
        return call(await usableLogin(cfg.dir, flow, cfg.env, record.accessToken)).complete(request);
      }
    },
  };
}
