import { EventLogError } from '../../errors';
import { isInSessionTree } from '../../schemas';
import type { LogRecord } from '../../log/event-collector';

/**
 * A copy of a session tree's records for an auditor who holds no Kafka (an audit bundle's
 * `log.ndjson`, bundle/bundle-format.ts): one JSON object a line,
 * `{"partition", "offset", "key", "value"}` (key and value in base64, so the copy holds their exact
 * bytes and no terminal sequence), in the order the log holds them, so
 * verifying the copy finds exactly what verifying the topic would.
 */
export function logCopyLine(treeId: string, r: LogRecord): string | null {
  const key = r.key?.toString('utf8') ?? null;
  if (key === null || !isInSessionTree(key, treeId)) return null;
  return JSON.stringify({ partition: r.partition, offset: r.offset, key: r.key!.toString('base64'), value: (r.value ?? Buffer.alloc(0)).toString('base64') });
}

/** The records of a copy (a bundle's log.ndjson); names the first line that is not one. */
export function parseLogCopy(text: string, source: string): LogRecord[] {
  return text.split('\n').flatMap((line, i) => {
    if (line.trim() === '') return [];
    const bad = (why: string) => new EventLogError(`${source} line ${i + 1}: ${why}`, { hint: 'an audit bundle is what `recur export <id> --out FILE` writes' });
    let r: { partition?: unknown; offset?: unknown; key?: unknown; value?: unknown };
    try {
      r = JSON.parse(line) as typeof r;
    } catch {
      throw bad('not JSON');
    }
    if (!Number.isInteger(r.partition) || typeof r.offset !== 'string' || typeof r.key !== 'string' || typeof r.value !== 'string') {
      throw bad('expected {"partition": int, "offset": string, "key": base64, "value": base64}');
    }
    return [{ partition: r.partition as number, offset: r.offset, key: Buffer.from(r.key, 'base64'), value: Buffer.from(r.value, 'base64') }];
  });
}
