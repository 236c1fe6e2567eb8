import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Per-session bearer tokens. Tokens are looked up by their SHA-256, so the map lookup's timing
 * says nothing usable about a token, and the final check is a constant-time compare.
 */
export interface SessionTokens {
  /** The session's token, minted on first call (32 random bytes, hex). */
  register(sessionId: string): string;
  revoke(sessionId: string): void;
  /** The session a presented token belongs to, or undefined. */
  resolve(token: string): string | undefined;
}

interface Entry {
  sessionId: string;
  digest: Buffer;
}

const digestOf = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

export function createSessionTokens(): SessionTokens {
  const byDigest = new Map<string, Entry>();
  const tokenOf = new Map<string, string>();
  return {
    register(sessionId) {
      const existing = tokenOf.get(sessionId);
      if (existing) return existing;
      const token = randomBytes(32).toString('hex');
      const digest = digestOf(token);
      byDigest.set(digest.toString('hex'), { sessionId, digest });
      tokenOf.set(sessionId, token);
      return token;
    },
    revoke(sessionId) {
      const token = tokenOf.get(sessionId);
      if (token === undefined) return;
      tokenOf.delete(sessionId);
      byDigest.delete(digestOf(token).toString('hex'));
    },
    resolve(token) {
      const digest = digestOf(token);
      const entry = byDigest.get(digest.toString('hex'));
      return entry && timingSafeEqual(entry.digest, digest) ? entry.sessionId : undefined;
    },
  };
}
