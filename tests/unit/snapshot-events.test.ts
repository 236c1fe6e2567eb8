import { EventLogError } from '../../errors';
import { ZERO_HASH, decodeEvent, encodeEvent, type EncodeEventInput, type RecurEventInput } from '../../schemas';

const at = (seq: number, event: RecurEventInput): EncodeEventInput => ({
  sessionId: 'r1/helper', rootId: 'r1', parentId: 'r1', seq, ts: 1_700_000_000_000 + seq, prevHash: seq ? 'ab'.repeat(32) : ZERO_HASH, event,
});

const manifest = { sha256: 'cd'.repeat(32), size: 812 };

describe('kernel snapshot events', () => {
  test('KernelSnapshotted round-trips with its unsaved and oversize lists', () => {
    const event: RecurEventInput = {
      type: 'KernelSnapshotted', manifest, coversSeq: 7, variables: 5, bytes: 123_456,
      unsaved: [{ name: 'g', reason: "generator: TypeError: cannot pickle 'generator' object" }],
      oversize: [{ name: 'big', size: 300_000_001, limit: 'variable' }, { name: 'rest', size: 10, limit: 'total' }],
      durationMs: 42,
    };
    const { record, value } = encodeEvent(at(8, event));
    expect(decodeEvent(value).event).toEqual(event);
    expect(record.type).toBe('KernelSnapshotted');
  });

  test('KernelRestored from no snapshot takes null manifest, seq and interrupted cell by default', () => {
    const event: RecurEventInput = {
      type: 'KernelRestored', restored: [], failed: [], replayedCells: ['r1/helper/3', 'r1/helper/5'], durationMs: 900,
    };
    expect(decodeEvent(encodeEvent(at(9, event)).value).event).toEqual({
      ...event, manifest: null, fromSnapshotSeq: null, interruptedCell: null,
    });
  });

  test('KernelRestored records what failed and which cell was in flight', () => {
    const event: RecurEventInput = {
      type: 'KernelRestored', manifest, fromSnapshotSeq: 8, restored: ['np', 'x'],
      failed: [{ name: 'y', reason: 'cloudpickle: BlobError: blob … does not match its hash; refusing to unpickle it' }],
      replayedCells: ['r1/helper/10'], interruptedCell: 'r1/helper/12', durationMs: 1500,
    };
    expect(decodeEvent(encodeEvent(at(13, event)).value).event).toEqual(event);
  });

  test('an oversize entry with an unknown limit is refused', () => {
    const event = {
      type: 'KernelSnapshotted', manifest, coversSeq: 1, variables: 0, bytes: 0, unsaved: [],
      oversize: [{ name: 'x', size: 1, limit: 'memory' }], durationMs: 1,
    } as unknown as RecurEventInput;
    expect(() => encodeEvent(at(2, event))).toThrow(EventLogError);
  });
});
