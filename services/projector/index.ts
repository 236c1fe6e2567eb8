export { readSessionLog } from './read-log';
export type { ReadLogOptions } from './read-log';
export { followSessionLog } from './follow-log';
export type { FollowItem, FollowLogOptions } from './follow-log';
export { EventCollector } from './event-collector';
export type { Accepted, EventConflict, LogReadResult, LogRecord, LogScope, UndecodableRecord } from './event-collector';
