import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { RecurConfig } from '../../config';
import { StackError } from '../../errors';
import { kafkaBrokers, kafkaConnection } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { KAFKA_ROLES, newKafkaCredentials, readKafkaCredentials, writeKafkaCredentials, type KafkaCredentials } from '../../config/kafka-credentials';
import { jvmOpts, serverProperties, writeProperties } from './kafka-properties';
import { addScramUsers } from './kafka-scram-upgrade';
import { baseEnv, type ServiceDef } from './service';

/** The files one home's broker runs from. */
export function kafkaFiles(config: RecurConfig) {
  const p = stackPaths(config);
  return {
    dataDir: join(p.kafkaData, 'data'),
    props: join(p.kafkaData, 'server.properties'),
    classpath: `${p.kafkaLib}/*`,
    credentials: p.kafkaCredentials,
  };
}

/**
 * A fresh log dir gets its SCRAM users in the format's bootstrap records, which costs nothing at
 * start. The passwords are in this one short-lived process's argv: StorageTool takes them no other way.
 */
function format(config: RecurConfig, creds: KafkaCredentials): void {
  const f = kafkaFiles(config);
  const idFile = join(stackPaths(config).kafkaData, 'cluster.id');
  if (!existsSync(idFile)) writeFileSync(idFile, randomBytes(16).toString('base64url'));
  const clusterId = readFileSync(idFile, 'utf8').trim();
  const users = KAFKA_ROLES.flatMap((r) => ['--add-scram', `SCRAM-SHA-512=[name=${creds[r].username},password=${creds[r].password}]`]);
  // `=` form: a base64url id may start with '-', which the tool's parser would take for a flag.
  const fmt = spawnSync(config.java, [...jvmOpts(config), '-cp', f.classpath, 'kafka.tools.StorageTool', 'format',
    `--cluster-id=${clusterId}`, '-c', f.props, '--ignore-formatted', ...users], { encoding: 'utf8' });
  if (fmt.status !== 0) {
    throw new StackError('kafka', `formatting the KRaft log dir failed: ${(fmt.stderr || fmt.stdout).trim().split('\n').pop()}`,
      `remove ${stackPaths(config).kafkaData} and run \`recur up\` again`);
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
    mkdirSync(f.dataDir, { recursive: true });
    const have = readKafkaCredentials(f.credentials);
    const creds = have ?? newKafkaCredentials();
    // Rewritten each start: ports or host may have changed since the last.
    writeProperties(f.props, serverProperties(config, f.dataDir, creds.admin));
    if (!existsSync(join(f.dataDir, 'meta.properties'))) {
      writeKafkaCredentials(f.credentials, creds);
      format(config, creds);
    } else if (!have) {
      // Formatted before the broker required SASL: add the users to the log, keeping its events.
      // The file is published only once the broker holds them, so a failed upgrade is retried.
      await addScramUsers(config, creds);
      writeKafkaCredentials(f.credentials, creds);
    }
    return {
      cmd: config.java,
      args: [...jvmOpts(config), `-Drecur.home=${config.home}`, '-cp', f.classpath, 'kafka.Kafka', f.props],
      env: baseEnv(),
      marker: `-Drecur.home=${config.home}`,
    };
  },
  async healthy(config) {
    let admin: ReturnType<Kafka['admin']> | undefined;
    try {
      admin = new Kafka({
        clientId: `${config.kafka.clientId}-health`,
        ...kafkaConnection(config, 'admin'),
        logLevel: logLevel.NOTHING,
        connectionTimeout: 1000,
        retry: { retries: 0 },
      }).admin();
      await admin.connect();
      const cluster = await admin.describeCluster();
      return cluster.brokers.length > 0 && cluster.controller !== null;
    } catch {
      return false;
    } finally {
      await admin?.disconnect().catch(() => undefined);
    }
  },
};
