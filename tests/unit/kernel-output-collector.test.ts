import type { KernelMessage } from '@jupyterlab/services';
import { createOutputCollector } from '../../activities/kernel/output-collector';

const msg = (msg_type: string, content: Record<string, unknown>) =>
  ({ header: { msg_type }, content }) as unknown as KernelMessage.IIOPubMessage;

describe('kernel output collector', () => {
  test('separates stdout, stderr, the result and displays', () => {
    const c = createOutputCollector(10_000);
    c.add(msg('stream', { name: 'stdout', text: 'a\n' }));
    c.add(msg('stream', { name: 'stderr', text: 'warn\n' }));
    c.add(msg('display_data', { data: { 'text/plain': 'fig' }, metadata: {} }));
    c.add(msg('stream', { name: 'stdout', text: 'b\n' }));
    c.add(msg('execute_result', { data: { 'text/plain': '42' }, execution_count: 1 }));
    c.add(msg('status', { execution_state: 'idle' }));
    expect(c.output()).toEqual({
      stdout: 'a\nb\n',
      stderr: 'warn\n',
      result: '42',
      displays: [{ 'text/plain': 'fig' }],
      error: null,
      truncated: false,
    });
  });

  test('strips ANSI colour codes from tracebacks', () => {
    const c = createOutputCollector(10_000);
    const traceback = ['\x1b[0;31m---------\x1b[0m', '\x1b[0;31mValueError\x1b[0m: \x1b[1mbad\x1b[0m'];
    c.add(msg('error', { ename: 'ValueError', evalue: 'bad', traceback }));
    expect(c.output().error).toEqual({ ename: 'ValueError', evalue: 'bad', traceback: '---------\nValueError: bad' });
  });

  test('takes the error from the execute reply when iopub carried none', () => {
    const c = createOutputCollector(10_000);
    c.setErrorIfMissing({ ename: 'KeyboardInterrupt', evalue: '', traceback: ['\x1b[31mKeyboardInterrupt\x1b[0m'] });
    expect(c.output().error?.traceback).toBe('KeyboardInterrupt');
  });

  test('drops output past the cap and says how much', () => {
    const c = createOutputCollector(10);
    c.add(msg('stream', { name: 'stdout', text: '0123456' }));
    c.add(msg('stream', { name: 'stderr', text: 'abcdef' }));
    c.add(msg('display_data', { data: { 'text/plain': 'x' } }));
    const out = c.output();
    expect(out.truncated).toBe(true);
    expect(out.stderr).toBe('abc');
    expect(out.displays).toEqual([]);
    expect(out.stdout).toBe('0123456\n[output truncated: 21 more characters not shown]\n');
  });
});
