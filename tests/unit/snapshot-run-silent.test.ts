import type { Kernel } from '@jupyterlab/services';
import { runSilent } from '../../activities/kernel/run-silent';
import { FakeSignal } from '../helpers/fake-signal';

/** A kernel whose silent run waits until the test replies, cancels or kills it. */
function fakeKernel() {
  let settle: { resolve: (m: unknown) => void; reject: (e: Error) => void } | undefined;
  const kernel = {
    status: 'idle' as Kernel.Status,
    isDisposed: false,
    statusChanged: new FakeSignal<Kernel.Status>(),
    connectionStatusChanged: new FakeSignal<Kernel.ConnectionStatus>(),
    disposed: new FakeSignal<void>(),
    anyMessage: new FakeSignal<Kernel.IAnyMessageArgs>(),
    requestExecute: jest.fn(() => ({ onIOPub: undefined, done: new Promise((resolve, reject) => (settle = { resolve, reject })) })),
  };
  return {
    kernel: kernel as unknown as Kernel.IKernelConnection,
    fake: kernel,
    reply: (content: object) => settle!.resolve({ content }),
  };
}

const opts = (over: Partial<Parameters<typeof runSilent>[2]> = {}) => ({
  expression: 'f()',
  timeoutMs: 60_000,
  interruptGraceMs: 60_000,
  interrupt: jest.fn(async () => undefined),
  ...over,
});

const okWith = (data: object) => ({ status: 'ok', user_expressions: { recur: { status: 'ok', data, metadata: {} } } });

describe('runSilent', () => {
  test('sends the code once without history or output and returns the expression as JSON', async () => {
    const k = fakeKernel();
    const pending = runSilent(k.kernel, 'x = 1', opts());
    k.reply(okWith({ 'application/json': { a: 1 }, 'text/plain': '<recur snapshot result>' }));
    expect(await pending).toEqual({ kind: 'ok', value: { a: 1 } });
    expect(k.fake.requestExecute).toHaveBeenCalledTimes(1);
    expect(k.fake.requestExecute).toHaveBeenCalledWith({
      code: 'x = 1', silent: true, store_history: false, allow_stdin: false, stop_on_error: false, user_expressions: { recur: 'f()' },
    });
  });

  test('an expression without a JSON repr gives its text', async () => {
    const k = fakeKernel();
    const pending = runSilent(k.kernel, '', opts());
    k.reply(okWith({ 'text/plain': '42' }));
    expect(await pending).toEqual({ kind: 'ok', value: '42' });
  });

  test('an error in the code or in the expression comes back as the Python error without ANSI codes', async () => {
    const k = fakeKernel();
    const inCode = runSilent(k.kernel, 'boom', opts());
    k.reply({ status: 'error', ename: 'NameError', evalue: "name 'boom' is not defined", traceback: ['\x1b[31mTraceback\x1b[0m', 'NameError'] });
    expect(await inCode).toEqual({ kind: 'error', ename: 'NameError', evalue: "name 'boom' is not defined", traceback: 'Traceback\nNameError' });

    const k2 = fakeKernel();
    const inExpression = runSilent(k2.kernel, '', opts());
    k2.reply({ status: 'ok', user_expressions: { recur: { status: 'error', ename: 'OSError', evalue: 'disk full', traceback: [] } } });
    expect(await inExpression).toMatchObject({ kind: 'error', ename: 'OSError', evalue: 'disk full' });
  });

  test('past its timeout it interrupts the kernel and reports a timeout once the kernel answers', async () => {
    jest.useFakeTimers();
    try {
      const k = fakeKernel();
      const o = opts({ timeoutMs: 1000 });
      const pending = runSilent(k.kernel, 'slow()', o);
      await jest.advanceTimersByTimeAsync(1000);
      expect(o.interrupt).toHaveBeenCalledTimes(1);
      k.reply({ status: 'error', ename: 'KeyboardInterrupt', evalue: '', traceback: [] });
      expect(await pending).toEqual({ kind: 'timeout' });
    } finally {
      jest.useRealTimers();
    }
  });

  test('a kernel that dies while the code runs is a loss, not an error', async () => {
    const k = fakeKernel();
    const pending = runSilent(k.kernel, 'snapshot()', opts());
    k.fake.statusChanged.emit('dead');
    expect(await pending).toEqual({ lost: 'died', reason: 'kernel dead' });
  });
});
