import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { RecurConfig } from '../../config';
import { StackError } from '../../errors';
import { kafkaBrokers, kafkaConnection } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { KAFKA_ROLES, newKafkaCredentials, readKafkaCredentials, writeKafkaCredentials, type KafkaCredentials } from '../../config/kafka-credentials';
import { jvmOpts, serverProperties, singleNode, writeProperties, type KafkaNode, type KafkaQuorum } from './kafka-properties';
import { addScramUsers } from './kafka-scram-upgrade';
import { baseEnv, type LaunchSpec, type ServiceDef } from './service';

/** The files one home's broker runs from. */
export function kafkaFiles(config: RecurConfig) {
  const p = stackPaths(config);
  return {
    dataDir: join(p.kafkaData, 'data'),
    props: join(p.kafkaData, 'server.properties'),
    /** Shared by every node of one cluster. */
    clusterId: join(p.kafkaData, 'cluster.id'),
    classpath: `${p.kafkaLib}/*`,
    credentials: p.kafkaCredentials,
  };
}

export type KafkaFiles = ReturnType<typeof kafkaFiles>;

/**
 * A fresh log dir gets its SCRAM users in the format's bootstrap records, which costs nothing at
 * start. The passwords are in this one short-lived process's argv: StorageTool takes them no other way.
 */
function format(config: RecurConfig, f: KafkaFiles, creds: KafkaCredentials): void {
  if (!existsSync(f.clusterId)) writeFileSync(f.clusterId, randomBytes(16).toString('base64url'));
  const clusterId = readFileSync(f.clusterId, 'utf8').trim();
  const users = KAFKA_ROLES.flatMap((r) => ['--add-scram', `SCRAM-SHA-512=[name=${creds[r].username},password=${creds[r].password}]`]);
  // `=` form: a base64url id may start with '-', which the tool's parser would take for a flag.
  const fmt = spawnSync(config.java, [...jvmOpts(config), '-cp', f.classpath, 'kafka.tools.StorageTool', 'format',
    `--cluster-id=${clusterId}`, '-c', f.props, '--ignore-formatted', ...users], { encoding: 'utf8' });
  if (fmt.status !== 0) {
    throw new StackError('kafka', `formatting the KRaft log dir failed: ${(fmt.stderr || fmt.stdout).trim().split('\n').pop()}`,
      `remove ${dirname(f.props)} and run \`recur up\` again`);
  }
}

/**
 * The broker compiles a method after a tenth of the JIT's usual count of calls, so a fresh stack's
 * first sessions run nearer a warm one's, for a few more compilations at its start
 * (docs/performance.md, "A warm stack").
 */
const BROKER_JIT = '-XX:CompileThresholdScaling=0.1';

/**
 * Writes one node's properties (again at each start: ports or host may have changed since the
 * last), formats its log dir on its first start, and says how to run it. `marker` tells this
 * node's process from any other.
 */
export function launchKafkaNode(config: RecurConfig, f: KafkaFiles, creds: KafkaCredentials, quorum: KafkaQuorum, marker: string): LaunchSpec {
  mkdirSync(f.dataDir, { recursive: true });
  writeProperties(f.props, serverProperties(config, f.dataDir, creds.admin, quorum));
  if (!existsSync(join(f.dataDir, 'meta.properties'))) format(config, f, creds);
  return { cmd: config.java, args: [...jvmOpts(config), BROKER_JIT, marker, '-cp', f.classpath, 'kafka.Kafka', f.props], env: baseEnv(), marker };
}

/** One quick probe, as the admin, of the node on `node.port`: it answers, a controller is elected and the node is a live broker of it. Never throws. */
export async function kafkaNodeHealthy(config: RecurConfig, node: KafkaNode): Promise<boolean> {
  let admin: ReturnType<Kafka['admin']> | undefined;
  try {
    admin = new Kafka({
      clientId: `${config.kafka.clientId}-health`,
      ...kafkaConnection(config, 'admin'),
      brokers: [`${config.host}:${node.port}`],
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1000,
      retry: { retries: 0 },
    }).admin();
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.controller !== null && cluster.brokers.some((b) => b.nodeId === node.id);
  } catch {
    return false;
  } finally {
    await admin?.disconnect().catch(() => undefined);
  }
}

export const kafkaService: ServiceDef = {
  name: 'kafka',
  startTimeoutSeconds: 90,
  ports: (c) => [
    { setting: 'RECUR_KAFKA_PORT', port: c.ports.kafka },
    { setting: 'RECUR_KAFKA_CONTROLLER_PORT', port: c.ports.kafkaController },
  ],
  url: (c) => `kafka://${kafkaBrokers(c)[0]}`,
  async prepare(config) {
    const f = kafkaFiles(config);
    const have = readKafkaCredentials(f.credentials);
    const creds = have ?? newKafkaCredentials();
    if (!existsSync(join(f.dataDir, 'meta.properties'))) {
      writeKafkaCredentials(f.credentials, creds);
    } else if (!have) {
      // Formatted before the broker required SASL: add the users to the log, keeping its events.
      // The file is published only once the broker holds them, so a failed upgrade is retried.
      await addScramUsers(config, creds);
      writeKafkaCredentials(f.credentials, creds);
    }
    return launchKafkaNode(config, f, creds, singleNode(config), `-Drecur.home=${config.home}`);
  },
  healthy: (config) => kafkaNodeHealthy(config, singleNode(config).self),
};
