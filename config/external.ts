import type { RecurConfig, SaslMechanism, TlsFiles } from './schema';

export const SASL_MECHANISMS: readonly SaslMechanism[] = ['none', 'plain', 'scram-sha-256', 'scram-sha-512'];

/** A settings combination that could only fail at the first connection, named now (env and config.json alike). */
export function externalServiceErrors(config: RecurConfig): string[] {
  const errors: string[] = [];
  const { brokers, sasl, tls } = config.kafka;
  const external = brokers.length > 0;
  if (!SASL_MECHANISMS.includes(sasl.mechanism)) {
    errors.push(`RECUR_KAFKA_SASL_MECHANISM (config kafka.sasl.mechanism): expected one of ${SASL_MECHANISMS.join(', ')}, got "${sasl.mechanism}"`);
  }
  if (!external && (sasl.mechanism !== 'none' || tls.enabled)) {
    errors.push('RECUR_KAFKA_SASL_MECHANISM / RECUR_KAFKA_TLS apply to an external cluster only: set RECUR_KAFKA_BROKERS too (the embedded broker secures itself)');
  }
  if (sasl.mechanism !== 'none' && (sasl.username === null || sasl.passwordFile === null)) {
    errors.push(`RECUR_KAFKA_SASL_MECHANISM=${sasl.mechanism} needs RECUR_KAFKA_SASL_USERNAME and RECUR_KAFKA_SASL_PASSWORD_FILE`);
  }
  if ((sasl.readerUsername === null) !== (sasl.readerPasswordFile === null)) {
    errors.push('RECUR_KAFKA_SASL_READER_USERNAME and RECUR_KAFKA_SASL_READER_PASSWORD_FILE go together');
  }
  errors.push(...tlsErrors('RECUR_KAFKA_TLS', tls));
  const temporal = config.temporal;
  if (temporal.address === null && (temporal.tls.enabled || temporal.apiKeyFile !== null)) {
    errors.push('RECUR_TEMPORAL_TLS / RECUR_TEMPORAL_API_KEY_FILE apply to an external Temporal only: set RECUR_TEMPORAL_ADDRESS too');
  }
  if (temporal.apiKeyFile !== null && !temporal.tls.enabled) {
    errors.push('RECUR_TEMPORAL_API_KEY_FILE: an API key is sent only over TLS; set RECUR_TEMPORAL_TLS=true');
  }
  errors.push(...tlsErrors('RECUR_TEMPORAL_TLS', temporal.tls));
  return errors;
}

function tlsErrors(prefix: string, tls: TlsFiles): string[] {
  const errors: string[] = [];
  const files = [tls.caFile, tls.certFile, tls.keyFile, tls.serverName];
  if (!tls.enabled && files.some((f) => f !== null)) errors.push(`${prefix}_* files are set but ${prefix} is off: set ${prefix}=true`);
  if ((tls.certFile === null) !== (tls.keyFile === null)) errors.push(`${prefix}_CERT_FILE and ${prefix}_KEY_FILE go together (mTLS)`);
  return errors;
}
