import { createUiAuth, clearedCookieHeader, sessionCookieHeader, sessionCookieOf } from '../../services/daemon/ui-auth';

describe('viewer sign-in codes and sessions', () => {
  let t = 1_000_000;
  const now = () => t;
  const auth = () => createUiAuth({ codeSeconds: 120, sessionSeconds: 3600 }, now);
  afterEach(() => jest.restoreAllMocks());

  it('mints 43-character base64url codes that expire codeSeconds later, each different', () => {
    const a = auth();
    const one = a.mintCode();
    const two = a.mintCode();
    expect(one.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(two.code).not.toBe(one.code);
    expect(one.expiresAt).toBe(new Date(t + 120_000).toISOString());
  });

  it('exchanges a code once for a 64-hex session; a used, unknown or empty code gets nothing', () => {
    const a = auth();
    const { code } = a.mintCode();
    const cookie = a.redeem(code);
    expect(cookie).toMatch(/^[0-9a-f]{64}$/);
    expect(a.isSession(cookie!)).toBe(true);
    expect(a.redeem(code)).toBeNull();
    expect(a.redeem(`${code}x`)).toBeNull();
    expect(a.redeem('')).toBeNull();
    expect(a.isSession('0'.repeat(64))).toBe(false);
  });

  it('refuses a code past its lifetime and ends a session past sessionSeconds', () => {
    const a = auth();
    const late = a.mintCode().code;
    const early = a.mintCode().code;
    const cookie = a.redeem(early)!;
    t += 120_000;
    expect(a.redeem(late)).toBeNull();
    expect(a.isSession(cookie)).toBe(true);
    t += 3600_000 - 120_000;
    expect(a.isSession(cookie)).toBe(false);
  });

  it('sweeps expired codes and sessions: a later lookup compares against none of them', () => {
    const crypto = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const a = auth();
    a.mintCode();
    const cookie = a.redeem(a.mintCode().code)!;
    t += 3600_000;
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    expect(a.redeem('anything')).toBeNull();
    expect(a.isSession(cookie)).toBe(false);
    expect(spy).not.toHaveBeenCalled();
  });

  it('ends a session on logout, and keeps other sessions', () => {
    const a = auth();
    const one = a.redeem(a.mintCode().code)!;
    const two = a.redeem(a.mintCode().code)!;
    a.endSession(one);
    expect(a.isSession(one)).toBe(false);
    expect(a.isSession(two)).toBe(true);
  });

  it('keeps at most 32 outstanding codes, dropping the oldest', () => {
    const a = auth();
    const codes = Array.from({ length: 33 }, () => a.mintCode().code);
    expect(a.redeem(codes[0])).toBeNull();
    expect(a.redeem(codes[1])).not.toBeNull();
    expect(a.redeem(codes[32])).not.toBeNull();
  });

  it('compares codes and cookies with crypto.timingSafeEqual, against every one held', () => {
    const crypto = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const a = auth();
    const codes = [a.mintCode().code, a.mintCode().code, a.mintCode().code];
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    const cookie = a.redeem(codes[0])!;
    expect(spy).toHaveBeenCalledTimes(3);
    spy.mockClear();
    expect(a.isSession(cookie)).toBe(true);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('reads the recur_ui cookie among others, only in the form the daemon hands out', () => {
    const value = 'ab'.repeat(32);
    expect(sessionCookieOf(`theme=dark; recur_ui=${value}; x=1`)).toBe(value);
    expect(sessionCookieOf(`recur_ui=${value}x`)).toBeUndefined();
    expect(sessionCookieOf(`other_recur_ui=${value}`)).toBeUndefined();
    expect(sessionCookieOf(undefined)).toBeUndefined();
  });

  it('sets the cookie HttpOnly, SameSite=Strict, for the whole origin, and clears it the same way', () => {
    expect(sessionCookieHeader('ab', 43200)).toBe('recur_ui=ab; HttpOnly; SameSite=Strict; Path=/; Max-Age=43200');
    expect(clearedCookieHeader()).toBe('recur_ui=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0');
  });
});
