import type { Kafka } from 'kafkajs';
import { readSessionLog } from '../projector';
import type { LogReply } from './api-types';
import { conflictFrame, undecodableFrame } from './problem-frames';

/** The tree under `sessionId` as logged so far, with every record the reader could not use. */
export async function readTreeLog(kafka: Kafka, topic: string, sessionId: string): Promise<LogReply> {
  const read = await readSessionLog({ kafka, topic, sessionId });
  return { events: [...read.events], problems: [...read.undecodable.map(undecodableFrame), ...read.conflicts.map(conflictFrame)] };
}
