import { ConfigResourceTypes, ConfigSource, type Admin } from 'kafkajs';
import { EventLogError } from '../errors';

/**
 * The event topic's own settings: delete policy with no time or size limit, because the log is
 * the system of record and must never be compacted or expire. Records carry their events' `ts`,
 * the workflow clock's, which a time-skipping Temporal server runs hours ahead of the broker's
 * (the virtual executor, docs/jobs.md): with nothing expiring by time, the broker's bound on
 * future timestamps (an hour, Kafka 4's default) guards nothing here.
 */
const EVENT_TOPIC_SETTINGS: Record<string, string> = {
  'cleanup.policy': 'delete',
  'retention.ms': '-1',
  'retention.bytes': '-1',
  'message.timestamp.after.max.ms': String(Number.MAX_SAFE_INTEGER),
};

/**
 * Creates the event topic, with EVENT_TOPIC_SETTINGS, if it does not exist. Throws when an
 * existing topic has fewer partitions than asked for.
 */
export async function ensureTopic(admin: Admin, topic: string, partitions: number): Promise<void> {
  // Look first: kafkajs logs TOPIC_ALREADY_EXISTS as an error even though it only returns false.
  if (!(await admin.listTopics()).includes(topic)) {
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions, configEntries: settingEntries(EVENT_TOPIC_SETTINGS) }] });
  }
  const have = await partitionsWithLeaders(admin, topic);
  if (have < partitions) {
    throw new EventLogError(`topic ${topic} has ${have} partitions, expected at least ${partitions}`);
  }
}

/**
 * Gives an existing event topic back the settings ensureTopic creates it with, where it lacks
 * them: a topic made by an older Recur (before the bound on future timestamps was lifted), or
 * changed with AlterConfigs, which drops every setting of the topic's it does not name. Its other
 * settings are kept: kafkajs has only that legacy call, so they are sent again. Needs the rights
 * to describe and alter the topic's configs (`recur up` runs it as the admin). Returns the names
 * of the settings it put back.
 */
export async function ensureTopicSettings(admin: Admin, topic: string): Promise<string[]> {
  const own = await topicSettings(admin, topic);
  const wrong = Object.keys(EVENT_TOPIC_SETTINGS).filter((name) => own[name] !== EVENT_TOPIC_SETTINGS[name]);
  if (wrong.length > 0) await alterTopicSettings(admin, topic, { ...own, ...EVENT_TOPIC_SETTINGS });
  return wrong;
}

/** The settings made on the topic itself (not the broker's defaults), by name. */
export async function topicSettings(admin: Admin, topic: string): Promise<Record<string, string>> {
  const described = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] });
  return Object.fromEntries(described.resources[0].configEntries
    .filter((c) => c.configSource === ConfigSource.TOPIC_CONFIG).map((c) => [c.configName, c.configValue]));
}

/** Makes `settings` the topic's whole set of its own: the legacy AlterConfigs drops any it does not name. */
export async function alterTopicSettings(admin: Admin, topic: string, settings: Record<string, string>): Promise<void> {
  await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: settingEntries(settings) }] });
}

const settingEntries = (settings: Record<string, string>) => Object.entries(settings).map(([name, value]) => ({ name, value }));

/** How long a new topic's partitions may take to have leaders everywhere. */
const LEADERS_WITHIN_MS = 30_000;
/** What a broker answers about a topic the controller created but it has not heard of yet. */
const NOT_YET = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);

/**
 * The topic's partition count once every partition has a leader. A cluster's brokers learn of a
 * new topic from the controller one by one, so one of them may answer that it does not host the
 * topic after createTopics returned; kafkajs's own wait for leaders gives up on that answer
 * instead of asking again, which failed cluster starts here.
 */
async function partitionsWithLeaders(admin: Admin, topic: string): Promise<number> {
  for (const deadline = Date.now() + LEADERS_WITHIN_MS; ; await new Promise((r) => setTimeout(r, 100))) {
    try {
      const partitions = (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]?.partitions ?? [];
      if (partitions.length > 0 && partitions.every((p) => p.leader >= 0)) return partitions.length;
      if (Date.now() > deadline) return partitions.length;
    } catch (e) {
      const type = (e as { type?: string }).type;
      if (type === undefined || !NOT_YET.has(type) || Date.now() > deadline) throw e;
    }
  }
}
