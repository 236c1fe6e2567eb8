import { randomBytes } from 'node:crypto';
import { secretMatches } from './auth-token';

/** The viewer's session cookie. */
export const UI_COOKIE = 'recur_ui';

// Outstanding codes and sign-ins are few (one per `recur ui`); the caps bound memory, oldest go first.
const MAX_CODES = 32;
const MAX_SESSIONS = 256;

export interface UiAuthSettings {
  codeSeconds: number;
  sessionSeconds: number;
}

/** One-time sign-in codes and the browser sessions they were exchanged for, in daemon memory only. */
export interface UiAuth {
  readonly sessionSeconds: number;
  mintCode(): { code: string; expiresAt: string };
  /** Uses up a code: a new session's cookie value, or null for an unknown, used or expired code. */
  redeem(code: string): string | null;
  isSession(cookie: string): boolean;
  endSession(cookie: string): void;
}

interface Secret {
  value: string;
  expires: number;
}

/**
 * Every stored secret is compared (in constant time each), so how long a lookup takes says
 * nothing about which or how many secrets matched a prefix of the presented one.
 */
function indexOf(list: Secret[], presented: string): number {
  let hit = -1;
  list.forEach((s, i) => {
    if (secretMatches(presented, s.value) && hit < 0) hit = i;
  });
  return hit;
}

function add(list: Secret[], secret: Secret, max: number): void {
  list.push(secret);
  if (list.length > max) list.shift();
}

export function createUiAuth(settings: UiAuthSettings, now: () => number = Date.now): UiAuth {
  const codes: Secret[] = [];
  const sessions: Secret[] = [];
  const sweep = (list: Secret[]): void => {
    const t = now();
    for (let i = list.length - 1; i >= 0; i--) if (list[i].expires <= t) list.splice(i, 1);
  };
  return {
    sessionSeconds: settings.sessionSeconds,
    mintCode() {
      sweep(codes);
      const code = { value: randomBytes(32).toString('base64url'), expires: now() + settings.codeSeconds * 1000 };
      add(codes, code, MAX_CODES);
      return { code: code.value, expiresAt: new Date(code.expires).toISOString() };
    },
    redeem(code) {
      sweep(codes);
      sweep(sessions);
      const i = indexOf(codes, code);
      if (i < 0) return null;
      codes.splice(i, 1);
      const cookie = randomBytes(32).toString('hex');
      add(sessions, { value: cookie, expires: now() + settings.sessionSeconds * 1000 }, MAX_SESSIONS);
      return cookie;
    },
    isSession(cookie) {
      sweep(sessions);
      return indexOf(sessions, cookie) >= 0;
    },
    endSession(cookie) {
      const i = indexOf(sessions, cookie);
      if (i >= 0) sessions.splice(i, 1);
    },
  };
}

/** The `recur_ui` value of a Cookie header, when it has the form the daemon hands out. */
export function sessionCookieOf(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === UI_COOKIE && /^[0-9a-f]{64}$/.test(value ?? '')) return value;
  }
  return undefined;
}

/** HttpOnly keeps it from the page's scripts; SameSite=Strict keeps other sites' pages from sending it. */
export const sessionCookieHeader = (cookie: string, maxAge: number): string =>
  `${UI_COOKIE}=${cookie}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}`;

export const clearedCookieHeader = (): string => `${UI_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
