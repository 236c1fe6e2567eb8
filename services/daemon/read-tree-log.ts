import type { Kafka } from 'kafkajs';
import { readSessionLog, type OffsetIndex } from '../projector';
import type { TreeLog } from './api-types';
import { conflictFrame, undecodableFrame } from './problem-frames';

/** The tree under `sessionId` as logged so far, with every record the reader could not use. */
export async function readTreeLog(kafka: Kafka, topic: string, sessionId: string, index: OffsetIndex): Promise<TreeLog> {
  const read = await readSessionLog({ kafka, topic, sessionId, index });
  return { events: [...read.events], problems: [...read.undecodable.map(undecodableFrame), ...read.conflicts.map(conflictFrame)] };
}
