import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type AclEntry } from 'kafkajs';
import type { RecurConfig } from '../../config';
import { ensureTopic, ensureTopicSettings } from '../../activities/event-topic';
import { SESSION_TRANSACTION_PREFIX } from '../../activities/fenced-log';
import { kafkaClient } from '../../config/connections';
import { CONSUMER_GROUP_PREFIX, EMBEDDED_USERS, type KafkaRole } from '../../config/kafka-credentials';

type Grant = Pick<AclEntry, 'resourceType' | 'resourceName' | 'resourcePatternType' | 'operation'>;

/**
 * What each embedded principal may do; the broker denies everything else (no ACL, no access).
 * Only the writer may append to the event topic. Both roles read through throwaway consumer
 * groups of their own, which they create, read and delete. Idempotent producing needs no
 * cluster grant since Kafka 3.0: Write on a topic implies it. The writer also writes in
 * transactions whose ids start with SESSION_TRANSACTION_PREFIX.
 */
export function eventTopicGrants(topic: string): Record<Exclude<KafkaRole, 'admin'>, Grant[]> {
  const onTopic = (operation: AclOperationTypes): Grant => ({
    resourceType: AclResourceTypes.TOPIC, resourceName: topic, resourcePatternType: ResourcePatternTypes.LITERAL, operation,
  });
  const onGroups = (operation: AclOperationTypes): Grant => ({
    resourceType: AclResourceTypes.GROUP, resourceName: CONSUMER_GROUP_PREFIX, resourcePatternType: ResourcePatternTypes.PREFIXED, operation,
  });
  // A session's steps run by the worker append in transactions of the session's own id (activities/fenced-log.ts).
  const onSessionTransactions = (operation: AclOperationTypes): Grant => ({
    resourceType: AclResourceTypes.TRANSACTIONAL_ID, resourceName: SESSION_TRANSACTION_PREFIX, resourcePatternType: ResourcePatternTypes.PREFIXED, operation,
  });
  const groups = [onGroups(AclOperationTypes.READ), onGroups(AclOperationTypes.DESCRIBE), onGroups(AclOperationTypes.DELETE)];
  const read = [onTopic(AclOperationTypes.READ), onTopic(AclOperationTypes.DESCRIBE)];
  const transactions = [onSessionTransactions(AclOperationTypes.WRITE), onSessionTransactions(AclOperationTypes.DESCRIBE)];
  return { writer: [onTopic(AclOperationTypes.WRITE), ...read, ...groups, ...transactions], reader: [...read, ...groups] };
}

/**
 * As the admin: creates the event topic if missing, puts back its settings where they were lost,
 * and grants the writer and reader their rights on it (again on every `recur up`: granting an
 * existing ACL is a no-op). Embedded broker only; an external cluster's operator does these
 * (docs/external-services.md). Returns the names of the settings it put back.
 */
export async function ensureEventTopicAccess(config: RecurConfig, topic = config.kafka.topic): Promise<string[]> {
  const admin = kafkaClient(config, 'admin', `${config.kafka.clientId}-up`).admin();
  await admin.connect();
  try {
    await ensureTopic(admin, topic, config.kafka.partitions);
    const restored = await ensureTopicSettings(admin, topic);
    const grants = eventTopicGrants(topic);
    const acl = (Object.keys(grants) as Array<keyof typeof grants>).flatMap((role) => grants[role].map((g) => ({
      ...g, principal: `User:${EMBEDDED_USERS[role]}`, host: '*', permissionType: AclPermissionTypes.ALLOW,
    })));
    await admin.createAcls({ acl });
    return restored;
  } finally {
    await admin.disconnect();
  }
}
