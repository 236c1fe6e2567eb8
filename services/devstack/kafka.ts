import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { RecurConfig } from '../../config';
import { StackError } from '../../errors';
import { kafkaBrokers, stackPaths } from './paths';
import { baseEnv, type ServiceDef } from './service';


function jvmOpts(config: RecurConfig): string[] {
  return [
    `-Xmx${config.kafka.heap}`, '-Xms128m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1',
    '-Djava.awt.headless=true',
    '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
    // The one info line readiness and humans look for: "Kafka Server started".
    '-Dorg.slf4j.simpleLogger.log.kafka.server.KafkaRaftServer=info',
    '-Dorg.slf4j.simpleLogger.showDateTime=true',
  ];
}

/** Single-node combined broker+controller, loopback only, sized for one machine. */
function serverProperties(config: RecurConfig, dataDir: string): string {
  const { host } = config;
  const { kafka, kafkaController } = config.ports;
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@${host}:${kafkaController}`,
    `listeners=PLAINTEXT://${host}:${kafka},CONTROLLER://${host}:${kafkaController}`,
    `advertised.listeners=PLAINTEXT://${host}:${kafka}`,
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
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

export const kafkaService: ServiceDef = {
  name: 'kafka',
  startTimeoutSeconds: 90,
  ports: (c) => [
    { setting: 'RECUR_KAFKA_PORT', port: c.ports.kafka },
    { setting: 'RECUR_KAFKA_CONTROLLER_PORT', port: c.ports.kafkaController },
  ],
  url: (c) => `kafka://${kafkaBrokers(c)[0]}`,
  prepare(config) {
    const p = stackPaths(config);
    const dataDir = join(p.kafkaData, 'data');
    mkdirSync(dataDir, { recursive: true });
    const props = join(p.kafkaData, 'server.properties');
    writeFileSync(props, serverProperties(config, dataDir));
    const cp = `${p.kafkaLib}/*`;
    if (!existsSync(join(dataDir, 'meta.properties'))) {
      const idFile = join(p.kafkaData, 'cluster.id');
      if (!existsSync(idFile)) writeFileSync(idFile, randomBytes(16).toString('base64url'));
      const clusterId = readFileSync(idFile, 'utf8').trim();
      // `=` form: a base64url id may start with '-', which the tool's parser would take for a flag.
      const fmt = spawnSync(config.java, [...jvmOpts(config), '-cp', cp, 'kafka.tools.StorageTool', 'format',
        `--cluster-id=${clusterId}`, '-c', props, '--ignore-formatted'], { encoding: 'utf8' });
      if (fmt.status !== 0) {
        throw new StackError('kafka', `formatting the KRaft log dir failed: ${(fmt.stderr || fmt.stdout).trim().split('\n').pop()}`,
          `remove ${p.kafkaData} and run \`recur up\` again`);
      }
    }
    return {
      cmd: config.java,
      args: [...jvmOpts(config), `-Drecur.home=${config.home}`, '-cp', cp, 'kafka.Kafka', props],
      env: baseEnv(),
      marker: `-Drecur.home=${config.home}`,
    };
  },
  async healthy(config) {
    const admin = new Kafka({
      clientId: `${config.kafka.clientId}-health`,
      brokers: kafkaBrokers(config),
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1000,
      retry: { retries: 0 },
    }).admin();
    try {
      await admin.connect();
      const cluster = await admin.describeCluster();
      return cluster.brokers.length > 0 && cluster.controller !== null;
    } catch {
      return false;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  },
};
