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

/**
 * Single-node combined broker+controller, loopback only, sized for one machine. Every listener
 * wants SASL and the StandardAuthorizer denies what no ACL allows (kafka-acls.ts): clients log in
 * with SCRAM-SHA-512 as one of the home's three users; the broker reaches its own controller with
 * PLAIN as the admin, whose password sits only here and in the owner-only credentials file.
 * `plainAdminOnClients` also lets the admin log in with PLAIN on the client listener: only for the
 * one start that adds SCRAM users to a log formatted without them (kafka-scram-upgrade.ts).
 */
export function serverProperties(config: RecurConfig, dataDir: string, admin: { username: string; password: string }, plainAdminOnClients = false): string {
  const { host } = config;
  const { kafka, kafkaController } = config.ports;
  const plain = `org.apache.kafka.common.security.plain.PlainLoginModule required username="${admin.username}" password="${admin.password}" user_${admin.username}="${admin.password}";`;
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@${host}:${kafkaController}`,
    `listeners=CLIENT://${host}:${kafka},CONTROLLER://${host}:${kafkaController}`,
    `advertised.listeners=CLIENT://${host}:${kafka}`,
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
    'default.replication.factor=1',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'transaction.state.log.num.partitions=1',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
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
