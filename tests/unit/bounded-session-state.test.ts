import { spendMessage, refill } from '../../workflows/message-rate';
import { RECENT_IDS, SeenMessages } from '../../workflows/seen-messages';

describe('seen message ids stay bounded and dedupe stays exact', () => {
  test('an agent message is a repeat when its number is at or below the highest seen from its sender', () => {
    const seen = new SeenMessages();
    expect(seen.admit('r/a#m1')).toBe(true);
    expect(seen.admit('r/a#m2')).toBe(true);
    expect(seen.admit('r/a#m2')).toBe(false);
    expect(seen.admit('r/a#m1')).toBe(false);
    expect(seen.admit('r/b#m1')).toBe(true);
    expect(seen.admit('r/a#m3')).toBe(true);
  });

  test('ten thousand messages from one sender carry one number, and dedupe survives the carry', () => {
    const seen = new SeenMessages();
    for (let n = 1; n <= 10_000; n++) seen.admit(`r#m${n}`);
    const carry = seen.carry();
    expect(carry).toEqual({ high: { r: 10_000 }, recent: [] });
    const next = new SeenMessages(JSON.parse(JSON.stringify(carry)));
    expect(next.admit('r#m10000')).toBe(false);
    expect(next.admit('r#m10001')).toBe(true);
  });

  test('unnumbered ids (recur send, child outcomes) are kept in a window of the latest', () => {
    const seen = new SeenMessages();
    expect(seen.admit('user#1')).toBe(true);
    expect(seen.admit('user#1')).toBe(false);
    for (let n = 2; n <= 3 * RECENT_IDS; n++) seen.admit(`user#${n}`);
    expect(seen.carry().recent).toHaveLength(RECENT_IDS);
    expect(seen.admit(`user#${3 * RECENT_IDS}`)).toBe(false);
    expect(seen.admit('r/a#outcome')).toBe(true);
  });
});

describe('the message allowance is a token bucket on workflow time', () => {
  const limit = { perMinute: 60, burst: 30 };

  test('a burst of 30 passes, the 31st waits a second, and a minute refills the burst', () => {
    let b = null;
    for (let i = 0; i < 30; i++) {
      const r = spendMessage(b, limit, 0);
      if (!('bucket' in r)) throw new Error(`message ${i} refused`);
      b = r.bucket;
    }
    const refused = spendMessage(b, limit, 0);
    expect(refused).toEqual({ refused: expect.stringContaining('try again in 1 s (RECUR_MESSAGES_PER_MINUTE, RECUR_MESSAGE_BURST)') });
    expect(spendMessage(b, limit, 1000)).toHaveProperty('bucket');
    expect(refill(b, limit, 60_000).tokens).toBe(30);
    expect(refill(b, limit, 10 * 60_000).tokens).toBe(30);
  });
});
