import type { Env } from '../types';
import type { AuthReply, Sleep } from './auth-http';
import type { LoginName, LoginRecord } from './login-store';

/** What the user is shown while a device-code login waits: open the URL, type the code. */
export interface DevicePrompt {
  verificationUrl: string;
  userCode: string;
}

export interface LoginDeps {
  env: Env;
  onPrompt: (prompt: DevicePrompt) => void;
  /** Ctrl-C: the poll stops and the login fails as cancelled, nothing written. */
  signal?: AbortSignal;
  sleep?: Sleep;
}

export interface RefreshDeps {
  env: Env;
  signal?: AbortSignal;
}

/** A refresh either gives a new record or says why the provider refused the stored credential for good. */
export type RefreshResult = { ok: true; record: LoginRecord } | { ok: false; rejected: string };

/** One subscription login: how to get it, keep it fresh, and spend it on a model call. */
export interface LoginFlow {
  name: LoginName;
  /** For `recur login` and `recur models`. */
  title: string;
  /** Every variable that points the flow or its API elsewhere (tests point them at a local server). */
  urlEnv: readonly string[];
  login(deps: LoginDeps): Promise<LoginRecord>;
  refresh(record: LoginRecord, deps: RefreshDeps): Promise<RefreshResult>;
  /** The headers that authenticate a call with `record`, and the API base URL the login itself named, if any. */
  callAuth(record: LoginRecord): { headers: Record<string, string>; baseUrl?: string };
}

/**
 * Why an auth endpoint refused for good (400/401/403: a reused, revoked or expired credential, a
 * declined code), quoting its message; null for anything that may pass (429, 5xx).
 */
export function refusedReason(reply: AuthReply): string | null {
  if (reply.status !== 400 && reply.status !== 401 && reply.status !== 403) return null;
  const error = reply.body?.error;
  // GitHub and RFC 6749 send `error` as a code with `error_description`; OpenAI sends `{error: {message, code}}`.
  const said = typeof error === 'string' ? error : typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : reply.body?.message;
  const description = reply.body?.error_description;
  return [`HTTP ${reply.status}`, typeof said === 'string' && said ? `: ${said}` : '', typeof description === 'string' ? ` (${description})` : ''].join('');
}

export const urlFrom = (env: Env, name: string, fallback: string): string => (env[name] || fallback).replace(/\/+$/, '');
