/** What workflow code sees of stack traces: V8's frame limit, and how many frames an error made ten calls deep records. */
export async function stackFramesProbe(): Promise<{ limit: number; frames: number }> {
  const deep = (n: number): Error => (n === 0 ? new Error('probe') : deep(n - 1));
  const stack = deep(10).stack ?? '';
  return { limit: Error.stackTraceLimit, frames: stack.split('\n').filter((l) => l.trimStart().startsWith('at ')).length };
}
