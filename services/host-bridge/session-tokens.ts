import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Per-session bearer tokens, derived: `<session id, base64url>.<HMAC-SHA256(secret, session id)>`.
 * A worker restarted with the same secret honours the tokens its predecessor handed to kernels,
 * so a cell that calls the host while the worker restarts carries on. A kernel learns only its
 * own token and never the secret, so it can act only as its own session.
 */
export interface SessionTokens {
  /** The session's token (and un-revokes it). */
  register(sessionId: string): string;
  /** Refuse the session's token in this process from now on. */
  revoke(sessionId: string): void;
  /** The session a presented token belongs to, or undefined. */
  resolve(token: string): string | undefined;
}

export function createSessionTokens(secret: Buffer = randomBytes(32)): SessionTokens {
  const revoked = new Set<string>();
  const macOf = (sessionId: string) => createHmac('sha256', secret).update(sessionId, 'utf8').digest();
  return {
    register(sessionId) {
      revoked.delete(sessionId);
      return `${Buffer.from(sessionId, 'utf8').toString('base64url')}.${macOf(sessionId).toString('hex')}`;
    },
    revoke(sessionId) {
      revoked.add(sessionId);
    },
    resolve(token) {
      const m = /^([A-Za-z0-9_-]+)\.([0-9a-f]{64})$/.exec(token);
      if (!m) return undefined;
      const sessionId = Buffer.from(m[1], 'base64url').toString('utf8');
      const presented = Buffer.from(m[2], 'hex');
      if (!timingSafeEqual(presented, macOf(sessionId)) || revoked.has(sessionId)) return undefined;
      return sessionId;
    },
  };
}
