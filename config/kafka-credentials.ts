import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { StackError } from '../errors';

/**
 * Who a Kafka client is. `admin` (a super user) sets the broker up — topic, ACLs — and nothing
 * else uses it; `writer` is the worker, the only principal that may append to the event topic;
 * `reader` may read and describe it and use its own consumer groups (CLI, daemon, audit, projector).
 */
export type KafkaRole = 'admin' | 'writer' | 'reader';

export const KAFKA_ROLES: readonly KafkaRole[] = ['admin', 'writer', 'reader'];

/** The embedded broker's SCRAM users: fixed names, random passwords. */
export const EMBEDDED_USERS: Record<KafkaRole, string> = { admin: 'recur-admin', writer: 'recur-worker', reader: 'recur-reader' };

/** Every name a reader's throwaway consumer group takes starts with this (services/projector/throwaway-consumer.ts). */
export const CONSUMER_GROUP_PREFIX = 'recur-';

export type KafkaCredentials = Record<KafkaRole, { username: string; password: string }>;

export function newKafkaCredentials(): KafkaCredentials {
  const user = (role: KafkaRole) => ({ username: EMBEDDED_USERS[role], password: randomBytes(24).toString('hex') });
  return { admin: user('admin'), writer: user('writer'), reader: user('reader') };
}

/** The home's credentials, or null when it has none yet (a fresh home, or one from before the broker required SASL). */
export function readKafkaCredentials(file: string): KafkaCredentials | null {
  if (!existsSync(file)) return null;
  const bad = () => new StackError('kafka', `${file} is not a Kafka credentials file Recur wrote`,
    `restore it, or remove it to have \`recur up\` set new passwords`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw bad();
  }
  const creds = parsed as KafkaCredentials;
  const valid = KAFKA_ROLES.every((r) => creds?.[r]?.username === EMBEDDED_USERS[r] && /^[0-9a-f]{32,}$/.test(creds[r].password ?? ''));
  if (!valid) throw bad();
  return creds;
}

/** Owner-only, published atomically (link(2)) so a reader never sees half a file. */
export function writeKafkaCredentials(file: string, creds: KafkaCredentials): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(creds, null, 2), { mode: 0o600 });
  try {
    rmSync(file, { force: true });
    linkSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
}
