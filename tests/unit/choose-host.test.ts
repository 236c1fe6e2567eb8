import { afterBeat, chooseHost, HOST_BEAT_MS, HOST_LIVE_MS, type HostLoad } from '../../workflows/hosts/choose-host';

const NOW = 1_000_000;
const h = (hostId: string, loadedKernels: number, placedCount = 0, ageMs = 0): HostLoad => ({ hostId, loadedKernels, placed: Array.from({ length: placedCount }, () => NOW), seenAt: NOW - ageMs });

describe('chooseHost', () => {
  test('the live host with the fewest loaded kernels', () => {
    expect(chooseHost([h('local', 3), h('b', 1), h('c', 2)], NOW)?.hostId).toBe('b');
  });

  test('sessions placed since a beat count, so a burst spreads over the hosts', () => {
    expect(chooseHost([h('local', 1), h('b', 0, 2)], NOW)?.hostId).toBe('local');
  });

  test('a beat right after a placement still counts it (the kernel may not be up); a beat a beat interval later does not', () => {
    const placedOnA = h('a', 0, 1);
    const soon = afterBeat(placedOnA, 'a', 0, NOW + 1_000);
    expect(chooseHost([soon, h('b', 0)], NOW + 1_000)?.hostId).toBe('b');
    expect(afterBeat(placedOnA, 'a', 1, NOW + HOST_BEAT_MS).placed).toEqual([]);
    expect(afterBeat(undefined, 'c', 2, NOW)).toEqual({ hostId: 'c', loadedKernels: 2, placed: [], seenAt: NOW });
  });

  test('equal loads go to the lowest id, the same on every replay', () => {
    expect(chooseHost([h('local', 1), h('b', 1), h('a', 1)], NOW)?.hostId).toBe('a');
  });

  test('a host silent for longer than the live window is never chosen, however idle', () => {
    expect(chooseHost([h('local', 9), h('b', 0, 0, HOST_LIVE_MS + 1)], NOW)?.hostId).toBe('local');
    expect(chooseHost([h('b', 0, 0, HOST_LIVE_MS)], NOW)?.hostId).toBe('b');
  });

  test('no live host: null', () => {
    expect(chooseHost([h('b', 0, 0, HOST_LIVE_MS + 1)], NOW)).toBeNull();
    expect(chooseHost([], NOW)).toBeNull();
  });
});
