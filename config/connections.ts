import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import type { TLSConfig } from '@temporalio/client';
import { Kafka, logLevel, type KafkaConfig, type SASLOptions } from 'kafkajs';
import type { RecurConfig, TlsFiles } from './schema';
import { ConfigError, StackError } from '../errors';
import { readKafkaCredentials, type KafkaRole } from './kafka-credentials';
import { stackPaths } from './home-paths';

/** A secret or certificate named by a setting; a missing file names the setting, not just the path. */
function readSetting(setting: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new ConfigError([`${setting}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`]);
  }
}

const secret = (setting: string, file: string) => readSetting(setting, file).toString('utf8').trim();

/** Whether `recur up` runs the broker (and secures it) or Recur joins a cluster someone else runs. */
export const embeddedKafka = (config: RecurConfig) => config.kafka.brokers.length === 0;
export const embeddedTemporal = (config: RecurConfig) => config.temporal.address === null;

export function kafkaBrokers(config: RecurConfig): string[] {
  return embeddedKafka(config) ? [`${config.host}:${config.ports.kafka}`] : config.kafka.brokers;
}

/** Where a kafkajs client connects and as whom, for one role. */
export function kafkaConnection(config: RecurConfig, role: KafkaRole): Pick<KafkaConfig, 'brokers' | 'ssl' | 'sasl'> {
  const brokers = kafkaBrokers(config);
  if (embeddedKafka(config)) {
    const file = stackPaths(config).kafkaCredentials;
    const creds = readKafkaCredentials(file);
    if (!creds) throw new StackError('kafka', `no Kafka credentials at ${file}`, 'start the stack first (recur up)');
    return { brokers, sasl: { mechanism: 'scram-sha-512', ...creds[role] } };
  }
  const { sasl, tls } = config.kafka;
  const ssl = tls.enabled ? nodeTls('RECUR_KAFKA_TLS', tls) : undefined;
  if (sasl.mechanism === 'none') return { brokers, ssl };
  // Validated by the config module: a mechanism comes with a username and a password file.
  const asReader = role === 'reader' && sasl.readerUsername !== null;
  const username = asReader ? sasl.readerUsername! : sasl.username!;
  const password = asReader
    ? secret('RECUR_KAFKA_SASL_READER_PASSWORD_FILE', sasl.readerPasswordFile!)
    : secret('RECUR_KAFKA_SASL_PASSWORD_FILE', sasl.passwordFile!);
  return { brokers, ssl, sasl: { mechanism: sasl.mechanism, username, password } as SASLOptions };
}

function nodeTls(prefix: string, tls: TlsFiles): TlsOptions {
  return {
    ...(tls.caFile !== null && { ca: readSetting(`${prefix}_CA_FILE`, tls.caFile) }),
    ...(tls.certFile !== null && { cert: readSetting(`${prefix}_CERT_FILE`, tls.certFile) }),
    ...(tls.keyFile !== null && { key: readSetting(`${prefix}_KEY_FILE`, tls.keyFile) }),
    ...(tls.serverName !== null && { servername: tls.serverName }),
  };
}

export function temporalAddress(config: RecurConfig): string {
  return config.temporal.address ?? `${config.host}:${config.ports.temporal}`;
}

/** What both `Connection.connect` (client) and `NativeConnection.connect` (worker) take to reach Temporal. */
export function temporalConnection(config: RecurConfig): { address: string; tls?: TLSConfig; apiKey?: string } {
  const { tls, apiKeyFile } = config.temporal;
  const prefix = 'RECUR_TEMPORAL_TLS';
  return {
    address: temporalAddress(config),
    ...(tls.enabled && {
      tls: {
        ...(tls.caFile !== null && { serverRootCACertificate: readSetting(`${prefix}_CA_FILE`, tls.caFile) }),
        ...(tls.certFile !== null && tls.keyFile !== null && {
          clientCertPair: { crt: readSetting(`${prefix}_CERT_FILE`, tls.certFile), key: readSetting(`${prefix}_KEY_FILE`, tls.keyFile) },
        }),
        ...(tls.serverName !== null && { serverNameOverride: tls.serverName }),
      },
    }),
    ...(apiKeyFile !== null && { apiKey: secret('RECUR_TEMPORAL_API_KEY_FILE', apiKeyFile) }),
  };
}

/**
 * A kafkajs client for the event log's cluster acting as `role`, with retries sized for a broker
 * that is still starting. Every Kafka client in Recur comes from here, so each one names its principal.
 */
export function kafkaClient(config: RecurConfig, role: KafkaRole, clientId = config.kafka.clientId): Kafka {
  return new Kafka({
    clientId,
    ...kafkaConnection(config, role),
    logLevel: logLevel.ERROR,
    retry: { retries: 10, initialRetryTime: 200 },
  });
}
