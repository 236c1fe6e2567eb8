import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Appends batches of JSON lines to one file, in order. One file per process kind, so two
 * processes never interleave partial lines; `drain` resolves once every batch is written.
 */
export function createJsonlFile(path: string) {
  let made: Promise<unknown> | undefined;
  let tail: Promise<void> = Promise.resolve();
  return {
    path,
    append(records: readonly unknown[]): Promise<void> {
      if (records.length === 0) return tail;
      const text = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
      const write = tail.then(async () => {
        made ??= mkdir(dirname(path), { recursive: true });
        await made;
        await appendFile(path, text);
      });
      tail = write.catch(() => undefined);
      return write;
    },
    drain: (): Promise<void> => tail,
  };
}
