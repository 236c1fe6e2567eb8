import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AclOperationTypes } from 'kafkajs';
import { configToEnv, parseConfig } from '../../config';
import { ConfigError, StackError } from '../../errors';
import { status } from '../../services/devstack';
import { kafkaConnection, temporalConnection } from '../../config/connections';
import { newKafkaCredentials, writeKafkaCredentials } from '../../config/kafka-credentials';
import { eventTopicGrants } from '../../services/devstack/kafka-acls';

const dir = mkdtempSync(join(tmpdir(), 'recur-conn-'));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const ca = file('ca.pem', 'CA PEM');
const cert = file('client.pem', 'CLIENT CERT');
const key = file('client.key', 'CLIENT KEY');
const writerPw = file('writer.pw', 'writer-secret\n');
const readerPw = file('reader.pw', 'reader-secret');
const apiKey = file('temporal.key', 'tmprl-api-key\n');
const home = mkdtempSync(join(tmpdir(), 'recur-conn-home-'));
const parse = (env: Record<string, string>) => parseConfig({ RECUR_HOME: home, ...env });

describe('external Kafka settings', () => {
  const external = {
    RECUR_KAFKA_BROKERS: 'k1.example:9093, k2.example:9093',
    RECUR_KAFKA_SASL_MECHANISM: 'scram-sha-256',
    RECUR_KAFKA_SASL_USERNAME: 'recur-worker',
    RECUR_KAFKA_SASL_PASSWORD_FILE: writerPw,
    RECUR_KAFKA_TLS: 'true',
    RECUR_KAFKA_TLS_CA_FILE: ca,
    RECUR_KAFKA_TLS_CERT_FILE: cert,
    RECUR_KAFKA_TLS_KEY_FILE: key,
    RECUR_KAFKA_TLS_SERVER_NAME: 'kafka.internal',
  };

  it('map to kafkajs brokers, SASL with the password read from its file, and mTLS from the CA, cert and key files', () => {
    const { config, errors } = parse(external);
    expect(errors).toEqual([]);
    expect(kafkaConnection(config, 'writer')).toEqual({
      brokers: ['k1.example:9093', 'k2.example:9093'],
      sasl: { mechanism: 'scram-sha-256', username: 'recur-worker', password: 'writer-secret' },
      ssl: { ca: Buffer.from('CA PEM'), cert: Buffer.from('CLIENT CERT'), key: Buffer.from('CLIENT KEY'), servername: 'kafka.internal' },
    });
  });

  it("give readers the reader principal when one is set, and the writer's otherwise", () => {
    const both = parse({ ...external, RECUR_KAFKA_SASL_READER_USERNAME: 'recur-reader', RECUR_KAFKA_SASL_READER_PASSWORD_FILE: readerPw }).config;
    expect(kafkaConnection(both, 'reader').sasl).toEqual({ mechanism: 'scram-sha-256', username: 'recur-reader', password: 'reader-secret' });
    expect(kafkaConnection(both, 'writer').sasl).toMatchObject({ username: 'recur-worker' });
    expect(kafkaConnection(parse(external).config, 'reader').sasl).toMatchObject({ username: 'recur-worker' });
  });

  it('leave SASL off and TLS on with the system roots when only brokers and TLS are set', () => {
    const { config } = parse({ RECUR_KAFKA_BROKERS: 'k1:9093', RECUR_KAFKA_TLS: '1' });
    expect(kafkaConnection(config, 'reader')).toEqual({ brokers: ['k1:9093'], ssl: {} });
  });

  it('survive the trip through the environment the daemon hands its worker', () => {
    const { config } = parse(external);
    expect(parseConfig(configToEnv(config)).config).toEqual(config);
  });

  it('are refused at load when incomplete or aimed at the embedded broker', () => {
    expect(parse({ RECUR_KAFKA_BROKERS: 'k:1', RECUR_KAFKA_SASL_MECHANISM: 'plain' }).errors)
      .toEqual(['RECUR_KAFKA_SASL_MECHANISM=plain needs RECUR_KAFKA_SASL_USERNAME and RECUR_KAFKA_SASL_PASSWORD_FILE']);
    expect(parse({ RECUR_KAFKA_SASL_MECHANISM: 'kerberos' }).errors).toEqual([expect.stringMatching(/^RECUR_KAFKA_SASL_MECHANISM: expected one of none, plain, scram-sha-256, scram-sha-512/)]);
    expect(parse({ RECUR_KAFKA_TLS: 'true' }).errors).toEqual([expect.stringMatching(/external cluster only: set RECUR_KAFKA_BROKERS/)]);
    expect(parse({ RECUR_KAFKA_BROKERS: 'k:1', RECUR_KAFKA_TLS: 'yes' }).errors).toEqual(['RECUR_KAFKA_TLS: expected true or false, got "yes"']);
    expect(parse({ RECUR_KAFKA_BROKERS: 'k:1', RECUR_KAFKA_TLS: 'true', RECUR_KAFKA_TLS_CERT_FILE: cert }).errors)
      .toEqual(['RECUR_KAFKA_TLS_CERT_FILE and RECUR_KAFKA_TLS_KEY_FILE go together (mTLS)']);
    expect(parse({ RECUR_KAFKA_BROKERS: 'k:1', RECUR_KAFKA_TLS_CA_FILE: ca }).errors).toEqual([expect.stringMatching(/RECUR_KAFKA_TLS is off/)]);
  });

  it('name the setting when a password file cannot be read', () => {
    const { config } = parse({ ...external, RECUR_KAFKA_SASL_PASSWORD_FILE: join(dir, 'missing.pw') });
    const err = (() => { try { kafkaConnection(config, 'writer'); } catch (e) { return e; } })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([expect.stringMatching(/^RECUR_KAFKA_SASL_PASSWORD_FILE: cannot read .*missing\.pw \(ENOENT\)/)]);
  });
});

describe('the embedded broker', () => {
  it("gives each role its own SCRAM-SHA-512 user from the home's credentials file", () => {
    const h = mkdtempSync(join(tmpdir(), 'recur-conn-embedded-'));
    const { config } = parseConfig({ RECUR_HOME: h, RECUR_KAFKA_PORT: '29999' });
    expect(() => kafkaConnection(config, 'reader')).toThrow(StackError);
    mkdirSync(join(h, 'run'));
    const creds = newKafkaCredentials();
    writeKafkaCredentials(join(h, 'run', 'kafka-credentials.json'), creds);
    for (const role of ['admin', 'writer', 'reader'] as const) {
      expect(kafkaConnection(config, role)).toEqual({ brokers: ['127.0.0.1:29999'], sasl: { mechanism: 'scram-sha-512', ...creds[role] } });
    }
    expect(new Set(Object.values(creds).map((c) => c.password)).size).toBe(3);
  });

  it('grants Write on the event topic to the writer alone', () => {
    const grants = eventTopicGrants('recur.events.v1');
    const ops = (role: 'writer' | 'reader') => grants[role].filter((g) => g.resourceName === 'recur.events.v1').map((g) => g.operation).sort();
    const { READ, WRITE, DESCRIBE } = AclOperationTypes;
    expect(ops('writer')).toEqual([READ, WRITE, DESCRIBE].sort());
    expect(ops('reader')).toEqual([READ, DESCRIBE].sort());
  });
});

describe('external Temporal settings', () => {
  it('map to one connection option set: address, TLS with CA, client cert pair and server name, and the API key from its file', () => {
    const { config, errors } = parse({
      RECUR_TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', RECUR_TEMPORAL_NAMESPACE: 'ns.acct',
      RECUR_TEMPORAL_TLS: 'true', RECUR_TEMPORAL_TLS_CA_FILE: ca, RECUR_TEMPORAL_TLS_CERT_FILE: cert, RECUR_TEMPORAL_TLS_KEY_FILE: key,
      RECUR_TEMPORAL_TLS_SERVER_NAME: 'frontend.internal', RECUR_TEMPORAL_API_KEY_FILE: apiKey,
    });
    expect(errors).toEqual([]);
    expect(config.temporal.namespace).toBe('ns.acct');
    expect(temporalConnection(config)).toEqual({
      address: 'ns.acct.tmprl.cloud:7233',
      tls: {
        serverRootCACertificate: Buffer.from('CA PEM'),
        clientCertPair: { crt: Buffer.from('CLIENT CERT'), key: Buffer.from('CLIENT KEY') },
        serverNameOverride: 'frontend.internal',
      },
      apiKey: 'tmprl-api-key',
    });
  });

  it('is the embedded dev server on loopback with no TLS when no address is set', () => {
    expect(temporalConnection(parse({ RECUR_TEMPORAL_PORT: '27000' }).config)).toEqual({ address: '127.0.0.1:27000' });
  });

  it('refuses an API key without TLS, and TLS without an external address', () => {
    expect(parse({ RECUR_TEMPORAL_ADDRESS: 't:7233', RECUR_TEMPORAL_API_KEY_FILE: apiKey }).errors)
      .toEqual(['RECUR_TEMPORAL_API_KEY_FILE: an API key is sent only over TLS; set RECUR_TEMPORAL_TLS=true']);
    expect(parse({ RECUR_TEMPORAL_TLS: 'true' }).errors).toEqual([expect.stringMatching(/external Temporal only: set RECUR_TEMPORAL_ADDRESS/)]);
  });
});

describe('recur up with external services', () => {
  it('manages (starts, stops, lists) no broker and no Temporal server of its own', async () => {
    const { config } = parse({ RECUR_KAFKA_BROKERS: 'k1:9093', RECUR_TEMPORAL_ADDRESS: 't:7233' });
    expect((await status(config)).map((s) => s.name)).toEqual(['jupyter', 'daemon', 'worker']);
    expect((await status(parse({}).config)).map((s) => s.name)).toEqual(['kafka', 'temporal', 'jupyter', 'daemon', 'worker']);
  });
});
