import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '../../../errors';

export type LoginName = 'chatgpt' | 'copilot';

/**
 * One subscription login as `recur login` stored it. Read only by the CLI and the worker's model
 * activity: no token enters a workflow, an event or a kernel.
 */
export interface LoginRecord {
  provider: LoginName;
  /** What is sent on model calls: OpenAI's access token, or the short-lived Copilot token. */
  accessToken: string;
  /** When `accessToken` stops working (ms since the epoch); null: not known, refreshed on a 401 only. */
  expiresAt: number | null;
  /** What gets a new access token: OpenAI's refresh token, or the GitHub OAuth token the Copilot token is exchanged for. */
  refreshToken: string;
  /** ChatGPT: the account the calls bill to (the id token's `chatgpt_account_id`), sent as `chatgpt-account-id`. */
  accountId?: string;
  /** Copilot: the API base URL the token exchange named for this account. */
  apiBaseUrl?: string;
  /** Set when the provider refused the refresh credential: only a new `recur login` helps. */
  rejected?: string;
  updatedAt: number;
}

const file = (dir: string, name: LoginName) => join(dir, `${name}.json`);

/** The stored login, or null when there is none. */
export function readLogin(dir: string, name: LoginName): LoginRecord | null {
  let text: string;
  try {
    text = readFileSync(file(dir, name), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  const record = JSON.parse(text) as LoginRecord;
  if (record.provider !== name || typeof record.accessToken !== 'string' || typeof record.refreshToken !== 'string') {
    throw new ProviderError(name, `${file(dir, name)} is not a login Recur wrote`, undefined, { retryable: false });
  }
  return record;
}

/**
 * Owner-only (0600 in a 0700 directory, whatever the umask), and atomic: the new file is
 * complete before rename(2) puts it in place, so a worker reading while the CLI refreshes sees
 * the old login or the new one, never half of either.
 */
export function writeLogin(dir: string, record: LoginRecord): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const target = file(dir, record.provider);
  const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify(record, null, 2), { mode: 0o600 });
    renameSync(tmp, target);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** True when there was a login to remove. */
export function removeLogin(dir: string, name: LoginName): boolean {
  const had = existsSync(file(dir, name));
  rmSync(file(dir, name), { force: true });
  return had;
}
