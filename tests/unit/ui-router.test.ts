import { formatRoute, loginCode, parseRoute, type Route } from '../../ui/state/router';

describe('the viewer\'s hash routes (ui/state/router.ts)', () => {
  test('a session page names its session, tab and selected event; formatting and parsing agree', () => {
    const routes: Route[] = [
      { view: 'list' },
      { view: 'session', sessionId: 'r123', tab: 'timeline', event: null },
      { view: 'session', sessionId: 'r123/worker a', tab: 'tree', event: null },
      { view: 'session', sessionId: 'r123', tab: 'replay', event: 'r123/child/5' },
      { view: 'session', sessionId: 'r?x#y', tab: 'verify', event: 'r?x#y/0' },
    ];
    for (const route of routes) expect(parseRoute(formatRoute(route))).toEqual(route);
    expect(formatRoute(routes[3])).toBe('#/s/r123/replay?e=r123%2Fchild%2F5');
    expect(parseRoute('#/s/r123/timeline?e=r123%2F5')).toEqual({ view: 'session', sessionId: 'r123', tab: 'timeline', event: 'r123/5' });
  });

  test('a session without a known tab opens its timeline; anything else is the list', () => {
    expect(parseRoute('#/s/r1')).toMatchObject({ sessionId: 'r1', tab: 'timeline', event: null });
    expect(parseRoute('#/s/r1/nonsense?e=')).toMatchObject({ tab: 'timeline', event: null });
    for (const hash of ['', '#', '#/', '#/x/r1', '#/s/', '#/s/%E0%A4%A/tree', '#login=abc']) expect(parseRoute(hash)).toEqual({ view: 'list' });
  });

  test('a login link\'s code is read only from a whole #login= fragment', () => {
    expect(loginCode('#login=Ab_-09xyz')).toBe('Ab_-09xyz');
    for (const hash of ['', '#/', '#login=', '#login=a b', '#/s/r1?login=abc', '#login=abc&x=1']) expect(loginCode(hash)).toBeNull();
  });
});
