import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecurConfig } from '../../config';
import { stackPaths } from '../../config/home-paths';
import { StackError } from '../../errors';
import { newKafkaCredentials, readKafkaCredentials, writeKafkaCredentials, type KafkaRole } from '../../config/kafka-credentials';
import { kafkaFiles, kafkaNodeHealthy, kafkaService, launchKafkaNode } from './kafka';
import type { KafkaNode } from './kafka-properties';
import type { ServiceDef } from './service';
import { startService, stopService } from './service-run';

/**
 * A KRaft cluster on this host: every node a broker and a voter of the controller quorum, each with
 * its own id, ports and log dir, all formatted with one cluster id and the home's SCRAM users. It
 * replicates every topic to each node (kafka-properties.ts), so it outlives the loss of one.
 */
export interface KafkaCluster {
  name: string;
  dir: string;
  nodes: KafkaNode[];
  /** The setting that chose the ports, named when one is taken. */
  portSetting: string;
}

/**
 * Three nodes under the home, the fewest whose quorum and min ISR 2 both outlive one loss; node i
 * listens on basePort + 2(i-1) for clients and on the next port for its controller.
 */
export function localKafkaCluster(config: RecurConfig, name: string, basePort: number, portSetting: string): KafkaCluster {
  const nodes = [1, 2, 3].map((id) => ({ id, port: basePort + 2 * (id - 1), controllerPort: basePort + 2 * (id - 1) + 1 }));
  return { name, dir: join(config.home, name), nodes, portSetting };
}

/** Each node as a service of the home: its own pid and log file (`<name>-<id>`), started and stopped as the stack's are. */
export function kafkaNodeServices(cluster: KafkaCluster): ServiceDef[] {
  return cluster.nodes.map((self) => ({
    name: `${cluster.name}-${self.id}`,
    startTimeoutSeconds: kafkaService.startTimeoutSeconds,
    ports: () => [self.port, self.controllerPort].map((port) => ({ setting: cluster.portSetting, port })),
    url: (c) => `kafka://${c.host}:${self.port}`,
    prepare(config) {
      const dir = join(cluster.dir, `node-${self.id}`);
      const f = { ...kafkaFiles(config), dataDir: join(dir, 'data'), props: join(dir, 'server.properties'), clusterId: join(cluster.dir, 'cluster.id') };
      mkdirSync(cluster.dir, { recursive: true });
      let creds = readKafkaCredentials(f.credentials);
      if (!creds) writeKafkaCredentials(f.credentials, (creds = newKafkaCredentials()));
      return launchKafkaNode(config, f, creds, { nodes: cluster.nodes, self }, `-Drecur.kafka.node=${dir}`);
    },
    healthy: (config) => kafkaNodeHealthy(config, self),
  }));
}

/** Starts every node not already healthy and waits for all; a node that fails to start stops the rest. */
export async function startKafkaCluster(config: RecurConfig, cluster: KafkaCluster, log?: (line: string) => void): Promise<void> {
  // All at once: no node is healthy before a majority of the quorum is up to elect a controller.
  const results = await Promise.allSettled(kafkaNodeServices(cluster).map((s) => startService(config, s, log)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await stopKafkaCluster(config, cluster);
    throw failed.reason;
  }
}

export async function stopKafkaCluster(config: RecurConfig, cluster: KafkaCluster): Promise<void> {
  await Promise.all(kafkaNodeServices(cluster).map((s) => stopService(config, s)));
}

/**
 * The settings under which a Recur process uses the cluster as an external Kafka
 * (docs/external-services.md): SCRAM-SHA-512 as the home's `as` user (the worker; the admin only
 * to create topics and grant ACLs) and as its reader, their passwords in owner-only files.
 */
export function kafkaClusterEnv(config: RecurConfig, cluster: KafkaCluster, as: Exclude<KafkaRole, 'reader'> = 'writer'): Record<string, string> {
  const creds = readKafkaCredentials(stackPaths(config).kafkaCredentials);
  if (!creds) throw new StackError(cluster.name, 'the home has no Kafka credentials yet', 'start the cluster first (startKafkaCluster)');
  const passwordFile = (role: KafkaRole) => {
    const file = join(cluster.dir, `${role}.password`);
    writeFileSync(file, creds[role].password, { mode: 0o600 });
    return file;
  };
  return {
    RECUR_KAFKA_BROKERS: cluster.nodes.map((n) => `${config.host}:${n.port}`).join(','),
    RECUR_KAFKA_SASL_MECHANISM: 'scram-sha-512',
    RECUR_KAFKA_SASL_USERNAME: creds[as].username,
    RECUR_KAFKA_SASL_PASSWORD_FILE: passwordFile(as),
    RECUR_KAFKA_SASL_READER_USERNAME: creds.reader.username,
    RECUR_KAFKA_SASL_READER_PASSWORD_FILE: passwordFile('reader'),
  };
}
