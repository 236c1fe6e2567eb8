import { createCellInterrupts } from '../../activities/kernel/cell-interrupts';

/** A kernel that ignores the first `lost` SIGINTs (sent before it starts executing), then ends the cell. */
function kernel(lost = 0) {
  const signals: string[] = [];
  let onSignal = (): void => undefined;
  const interrupts = createCellInterrupts(async (sessionId) => {
    signals.push(sessionId);
    if (signals.length > lost) onSignal();
  }, 5);
  return { interrupts, signals, whenSignalled: (fn: () => void) => (onSignal = fn) };
}

describe('an operator interrupt kept for its cell', () => {
  test('a cell interrupted before it reached the kernel is not run, and no SIGINT is sent', async () => {
    const k = kernel();
    await k.interrupts.interrupt('s', 's/4');
    expect(k.interrupts.begin('s', 's/4')).toBe(false);
    expect(k.signals).toEqual([]);
    // Spent: the next cell runs.
    expect(k.interrupts.begin('s', 's/7')).toBe(true);
  });

  test('a running cell is signalled again until it ends, so a SIGINT lost before execution starts does not let it run on', async () => {
    const k = kernel(2);
    expect(k.interrupts.begin('s', 's/4')).toBe(true);
    k.whenSignalled(() => k.interrupts.end('s', 's/4'));
    await k.interrupts.interrupt('s', 's/4');
    expect(k.signals).toEqual(['s', 's', 's']);
  });

  test('an interrupt for a cell that already ended does not reach the next cell', async () => {
    const k = kernel();
    expect(k.interrupts.begin('s', 's/4')).toBe(true);
    k.interrupts.end('s', 's/4');
    await k.interrupts.interrupt('s', 's/4');
    expect(k.interrupts.begin('s', 's/7')).toBe(true);
    expect(k.signals).toEqual([]);
  });

  test('a cell that ignores every SIGINT is given up on after a bounded number (its timeout still ends it)', async () => {
    const k = kernel(Infinity);
    expect(k.interrupts.begin('s', 's/4')).toBe(true);
    await k.interrupts.interrupt('s', 's/4');
    expect(k.signals).toHaveLength(10);
  });

  test('sessions are apart: an interrupt of one session never touches another', async () => {
    const k = kernel();
    expect(k.interrupts.begin('a', 'a/4')).toBe(true);
    await k.interrupts.interrupt('b', 'b/4');
    expect(k.signals).toEqual([]);
    expect(k.interrupts.begin('b', 'b/4')).toBe(false);
  });
});
