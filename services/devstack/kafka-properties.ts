import { renameSync, writeFileSync } from 'node:fs';
import type { RecurConfig } from '../../config';

/**
 * Broker properties hold the admin's password: written owner-only even over a file an older
 * Recur left group-readable (writeFileSync's mode applies only to a file it creates).
 */
export function writeProperties(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, file);
}

export function jvmOpts(config: RecurConfig): string[] {
  return [
    `-Xmx${config.kafka.heap}`, '-Xms128m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1',
    '-Djava.awt.headless=true',
    '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
    // The one info line readiness and humans look for: "Kafka Server started".
    '-Dorg.slf4j.simpleLogger.log.kafka.server.KafkaRaftServer=info',
    '-Dorg.slf4j.simpleLogger.showDateTime=true',
  ];
}

/** One KRaft node on this host, broker and controller in one process. */
export interface KafkaNode {
  id: number;
  port: number;
  controllerPort: number;
}

/** The nodes of a KRaft quorum and the one whose properties are being written. */
export interface KafkaQuorum {
  nodes: readonly KafkaNode[];
  self: KafkaNode;
}

/** The embedded broker: a quorum of one on the home's ports. */
export function singleNode(config: RecurConfig): KafkaQuorum {
  const self = { id: 1, port: config.ports.kafka, controllerPort: config.ports.kafkaController };
  return { nodes: [self], self };
}

/**
 * A combined broker+controller node, loopback only, sized for one machine: the embedded single
 * node, or one node of a local cluster (kafka-cluster.ts). Every listener wants SASL and the
 * StandardAuthorizer denies what no ACL allows (kafka-acls.ts): clients log in with SCRAM-SHA-512
 * as one of the home's three users; a node reaches the controllers with PLAIN as the admin, whose
 * password sits only here and in the owner-only credentials file.
 * `plainAdminOnClients` also lets the admin log in with PLAIN on the client listener: only for the
 * one start that adds SCRAM users to a log formatted without them (kafka-scram-upgrade.ts).
 */
export function serverProperties(config: RecurConfig, dataDir: string, admin: { username: string; password: string },
  { nodes, self }: KafkaQuorum = singleNode(config), plainAdminOnClients = false): string {
  const { host } = config;
  const replicas = nodes.length;
  // Every topic keeps one copy per node, and an acks=all write needs all but one of them, so one
  // node may be lost without losing an acknowledged record or stopping writes.
  const minIsr = Math.max(1, replicas - 1);
  const plain = `org.apache.kafka.common.security.plain.PlainLoginModule required username="${admin.username}" password="${admin.password}" user_${admin.username}="${admin.password}";`;
  return [
    'process.roles=broker,controller',
    `node.id=${self.id}`,
    `controller.quorum.voters=${nodes.map((n) => `${n.id}@${host}:${n.controllerPort}`).join(',')}`,
    `listeners=CLIENT://${host}:${self.port},CONTROLLER://${host}:${self.controllerPort}`,
    `advertised.listeners=CLIENT://${host}:${self.port}`,
    'listener.security.protocol.map=CLIENT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT',
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=CLIENT',
    'sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512',
    'sasl.mechanism.controller.protocol=PLAIN',
    `listener.name.client.sasl.enabled.mechanisms=SCRAM-SHA-512${plainAdminOnClients ? ',PLAIN' : ''}`,
    `listener.name.client.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${admin.username}" password="${admin.password}";`,
    ...(plainAdminOnClients ? [`listener.name.client.plain.sasl.jaas.config=${plain}`] : []),
    'listener.name.controller.sasl.enabled.mechanisms=PLAIN',
    `listener.name.controller.plain.sasl.jaas.config=${plain}`,
    'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    `super.users=User:${admin.username}`,
    `log.dirs=${dataDir}`,
    `num.partitions=${config.kafka.partitions}`,
    `default.replication.factor=${replicas}`,
    `min.insync.replicas=${minIsr}`,
    `offsets.topic.replication.factor=${replicas}`,
    'offsets.topic.num.partitions=1',
    `transaction.state.log.replication.factor=${replicas}`,
    `transaction.state.log.min.isr=${minIsr}`,
    'transaction.state.log.num.partitions=1',
    `share.coordinator.state.topic.replication.factor=${replicas}`,
    `share.coordinator.state.topic.min.isr=${minIsr}`,
    'group.initial.rebalance.delay.ms=0',
    // The event log is append-only and kept: nothing expires by age or size.
    'log.retention.hours=-1',
    'log.retention.bytes=-1',
    'auto.create.topics.enable=false',
    'num.network.threads=2',
    'num.io.threads=2',
    '',
  ].join('\n');
}
