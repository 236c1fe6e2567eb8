import { setTimeout as sleepFor } from 'node:timers/promises';
import { ProviderError } from '../../../errors';

/** What an auth endpoint answered: the status and the body as JSON (null when it was not JSON). */
export interface AuthReply {
  status: number;
  body: Record<string, unknown> | null;
}

/** Short: an auth endpoint answers at once or not at all. */
const AUTH_TIMEOUT_MS = 30_000;

/** One auth request; network trouble and timeouts come back as a ProviderError naming the URL, never a raw fetch error. */
export async function authRequest(
  provider: string,
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; json?: unknown; form?: Record<string, string>; signal?: AbortSignal },
): Promise<AuthReply> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  let body: string | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(AUTH_TIMEOUT_MS)]) : AbortSignal.timeout(AUTH_TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(url, { method: init.method ?? 'POST', headers, body, signal });
  } catch (e) {
    if (init.signal?.aborted) throw cancelled(provider);
    throw new ProviderError(provider, `${url}: ${(e as Error).message}`, undefined, { retryable: true, cause: e });
  }
  const text = await res.text();
  let parsed: Record<string, unknown> | null = null;
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) parsed = value as Record<string, unknown>;
  } catch {
    // A proxy's HTML page or an empty body: the status says enough.
  }
  return { status: res.status, body: parsed };
}

export function cancelled(provider: string): ProviderError {
  return new ProviderError(provider, 'login cancelled', undefined, { retryable: false });
}

/** How a poll waits; tests pass one that records the wait and returns at once. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = async (ms, signal) => {
  await sleepFor(ms, undefined, { signal });
};

/** A string field of a reply, or a ProviderError naming what was missing. */
export function field(provider: string, reply: AuthReply, name: string, what: string): string {
  const v = reply.body?.[name];
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number') return String(v);
  throw new ProviderError(provider, `${what}: the reply (HTTP ${reply.status}) has no ${name}`, reply.status, { retryable: false });
}
