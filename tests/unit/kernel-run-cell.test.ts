import type { Kernel, KernelMessage } from '@jupyterlab/services';
import { rememberProcess } from '../../activities/kernel/kernel-process';
import { runCell } from '../../activities/kernel/run-cell';
import { FakeSignal } from '../helpers/fake-signal';

/** A kernel whose cell does nothing until the test tells it to: reply, emit output, die. */
function fakeKernel() {
  let settle: { resolve: (m: unknown) => void; reject: (e: Error) => void } | undefined;
  const future = { onIOPub: (_m: KernelMessage.IIOPubMessage) => undefined as unknown };
  const kernel = {
    status: 'idle' as Kernel.Status,
    isDisposed: false,
    statusChanged: new FakeSignal<Kernel.Status>(),
    connectionStatusChanged: new FakeSignal<Kernel.ConnectionStatus>(),
    disposed: new FakeSignal<void>(),
    anyMessage: new FakeSignal<Kernel.IAnyMessageArgs>(),
    requestExecute: jest.fn(() => Object.assign(future, { done: new Promise((resolve, reject) => (settle = { resolve, reject })) })),
  };
  return {
    kernel: kernel as unknown as Kernel.IKernelConnection,
    fake: kernel,
    iopub: (msg_type: string, content: object) => future.onIOPub({ header: { msg_type }, content } as never),
    reply: (content: object) => settle!.resolve({ content }),
    cancel: (message: string) => settle!.reject(new Error(message)),
  };
}

const opts = (over: Partial<Parameters<typeof runCell>[2]> = {}) => ({
  timeoutMs: 60_000,
  maxOutputChars: 1000,
  interruptGraceMs: 60_000,
  interrupt: jest.fn(async () => undefined),
  ...over,
});

describe('runCell', () => {
  test('sends the cell once and folds its output into the result', async () => {
    const k = fakeKernel();
    const pending = runCell(k.kernel, 'print(1)', opts({ cellId: 's/4' }));
    k.iopub('stream', { name: 'stdout', text: '1\n' });
    k.reply({ status: 'ok', execution_count: 7 });
    expect(await pending).toMatchObject({ status: 'ok', stdout: '1\n', executionCount: 7, error: null });
    expect(k.fake.requestExecute).toHaveBeenCalledTimes(1);
    // The cell id rides in the request's metadata: the kernel files the cell's outputs under it for a retry.
    expect(k.fake.requestExecute).toHaveBeenCalledWith(
      expect.objectContaining({ allow_stdin: false, stop_on_error: false }), true, { recur_cell: 's/4' });
  });

  test('on timeout it interrupts and reports timeout with the output so far', async () => {
    const k = fakeKernel();
    const o = opts({
      timeoutMs: 10,
      interrupt: jest.fn(async () => {
        k.iopub('error', { ename: 'KeyboardInterrupt', evalue: '', traceback: [] });
        k.reply({ status: 'error', ename: 'KeyboardInterrupt', evalue: '', traceback: [], execution_count: 2 });
      }),
    });
    const pending = runCell(k.kernel, 'while True: pass', o);
    k.iopub('stream', { name: 'stdout', text: 'partial' });
    expect(await pending).toMatchObject({ status: 'timeout', stdout: 'partial', error: { ename: 'KeyboardInterrupt' } });
    expect(o.interrupt).toHaveBeenCalledTimes(1);
  });

  test('a KeyboardInterrupt nobody timed is "interrupted", and so is an aborted cell', async () => {
    const k = fakeKernel();
    const pending = runCell(k.kernel, 'x', opts());
    k.reply({ status: 'error', ename: 'KeyboardInterrupt', evalue: '', traceback: [] });
    expect(await pending).toMatchObject({ status: 'interrupted' });
    const k2 = fakeKernel();
    const aborted = runCell(k2.kernel, 'x', opts());
    k2.reply({ status: 'aborted' });
    expect(await aborted).toMatchObject({ status: 'interrupted' });
  });

  test.each(['dead', 'autorestarting', 'restarting'] as const)('a kernel going %s mid-cell is a loss, not a result', async (status) => {
    const k = fakeKernel();
    const pending = runCell(k.kernel, 'x', opts());
    k.fake.statusChanged.emit(status);
    expect(await pending).toEqual({ lost: 'died', reason: `kernel ${status}` });
  });

  const fromKernel = (session: string, channel: string, msg_type: string) =>
    ({ direction: 'recv', msg: { channel, header: { session, msg_type }, parent_header: {}, content: {} } }) as unknown as Kernel.IAnyMessageArgs;

  test.each([
    ['a message from another kernel process (a restart through the REST API)', fromKernel('process-2', 'shell', 'execute_reply')],
    ["the bound process's own shutdown_reply on IOPub", fromKernel('process-1', 'iopub', 'shutdown_reply')],
  ])('%s mid-cell is a loss, not a wait for a reply that never comes', async (_what, message) => {
    const k = fakeKernel();
    rememberProcess(k.kernel, 'process-1');
    const pending = runCell(k.kernel, 'x', opts());
    k.fake.anyMessage.emit(fromKernel('process-1', 'iopub', 'status'));
    k.fake.anyMessage.emit(message);
    expect(await pending).toEqual({ lost: 'died', reason: 'the kernel process was shut down or restarted, so its namespace was reset' });
  });

  test('a cancelled future (kernel state cleared) is a loss', async () => {
    const k = fakeKernel();
    const pending = runCell(k.kernel, 'x', opts());
    k.cancel('Canceled future for execute_request message before replies were done');
    expect(await pending).toMatchObject({ lost: 'died' });
  });

  test('a cell that ignores the interrupt is reported stuck', async () => {
    const k = fakeKernel();
    expect(await runCell(k.kernel, 'x', opts({ timeoutMs: 5, interruptGraceMs: 5 }))).toMatchObject({ lost: 'stuck' });
  });

  test('an interrupt the server refuses is a loss', async () => {
    const k = fakeKernel();
    const interrupt = jest.fn(async () => {
      throw new Error('404 kernel not found');
    });
    expect(await runCell(k.kernel, 'x', opts({ timeoutMs: 5, interrupt }))).toEqual({
      lost: 'died',
      reason: 'interrupt after timeout failed: 404 kernel not found',
    });
  });
});
