import type { EventConflict, UndecodableRecord } from '../projector';
import type { ProblemFrame } from './api-types';

export function undecodableFrame(record: UndecodableRecord): ProblemFrame {
  return { kind: 'problem', problem: 'undecodable', ...record };
}

export function conflictFrame(c: EventConflict): ProblemFrame {
  return {
    kind: 'problem', problem: 'conflict', eventId: c.eventId, partition: c.partition, offset: c.offset,
    reason: `two different records claim ${c.eventId}: kept hash ${c.keptHash}, dropped ${c.otherHash}`,
  };
}
