import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3StoreError } from '../../activities/blob-store-s3';
import { openBlobStore } from '../../activities/open-blob-store';
import { configToEnv, defaultConfig, loadConfig, parseConfig } from '../../config';
import { parseS3Url } from '../../config/blob-store';
import { ConfigError } from '../../errors';

const home = mkdtempSync(join(tmpdir(), 'recur-blob-config-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const parse = (env: Record<string, string>) => parseConfig({ RECUR_HOME: home, ...env });

describe('RECUR_BLOB_STORE and the AWS variables', () => {
  it('default to the home directory, whatever AWS variables other tools set', () => {
    const { config, errors } = parse({ AWS_ENDPOINT_URL: 'not a url', AWS_REGION: 'eu-west-1' });
    expect(errors).toEqual([]);
    expect(config.blobStore.url).toBeNull();
  });

  it('take the S3-specific endpoint over the general one, and AWS_REGION over AWS_DEFAULT_REGION', () => {
    const { config, errors } = parse({
      RECUR_BLOB_STORE: 's3://recur-blobs/team/a', AWS_ENDPOINT_URL: 'http://other:1', AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000',
      AWS_DEFAULT_REGION: 'us-west-2', AWS_REGION: 'eu-central-1',
    });
    expect(errors).toEqual([]);
    expect(config.blobStore).toEqual({ url: 's3://recur-blobs/team/a', endpoint: 'http://127.0.0.1:9000', region: 'eu-central-1' });
    expect(parse({ RECUR_BLOB_STORE: 's3://recur-blobs', AWS_ENDPOINT_URL: 'https://s3.example', AWS_DEFAULT_REGION: 'us-west-2' }).config.blobStore)
      .toEqual({ url: 's3://recur-blobs', endpoint: 'https://s3.example', region: 'us-west-2' });
  });

  it.each([
    ['/var/blobs', /expected s3:\/\/<bucket>\[\/<prefix>\], got "\/var\/blobs"$/],
    ['s3://', /a bucket name is 3-63 lowercase/],
    ['s3://My_Bucket/x', /a bucket name is 3-63 lowercase/],
    ['s3://ab', /a bucket name is 3-63 lowercase/],
    ['s3://bucket/a//b', /the prefix has an empty, "\." or "\.\." part/],
    ['s3://bucket/a/../b', /the prefix has an empty, "\." or "\.\." part/],
    ['s3://bucket/x?versionId=1', /expected s3:\/\//],
  ])('refuse %s with the variable, the expected form and the reason', (url, reason) => {
    const { errors } = parse({ RECUR_BLOB_STORE: url });
    expect(errors).toEqual([expect.stringMatching(/^RECUR_BLOB_STORE \(config blobStore\.url\): /)]);
    expect(errors[0]).toMatch(reason);
    expect(() => loadConfig({ RECUR_HOME: home, RECUR_BLOB_STORE: url })).toThrow(ConfigError);
  });

  it('refuse an endpoint that is not an http(s) URL once the S3 store is chosen', () => {
    expect(parse({ RECUR_BLOB_STORE: 's3://recur-blobs', AWS_ENDPOINT_URL_S3: 'localhost:9000' }).errors).toEqual([
      'AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL (config blobStore.endpoint): expected an http:// or https:// URL, got "localhost:9000"',
    ]);
  });

  it('split bucket and prefix, the prefix without its outer slashes', () => {
    expect(parseS3Url('s3://recur-blobs')).toEqual({ bucket: 'recur-blobs', prefix: '' });
    expect(parseS3Url('s3://recur-blobs/')).toEqual({ bucket: 'recur-blobs', prefix: '' });
    expect(parseS3Url('s3://recur.blobs/team/a/')).toEqual({ bucket: 'recur.blobs', prefix: 'team/a' });
  });

  it('reach the processes the daemon starts', () => {
    const { config } = parse({ RECUR_BLOB_STORE: 's3://recur-blobs/p' });
    expect(parseConfig(configToEnv(config)).config.blobStore.url).toBe('s3://recur-blobs/p');
  });
});

describe('openBlobStore', () => {
  it('is the home directory store when no bucket is set', async () => {
    const config = parse({}).config;
    const store = openBlobStore(config);
    const ref = await store.put(Buffer.from('local bytes'));
    expect((await openBlobStore(config).get(ref.sha256)).toString()).toBe('local bytes');
    expect(existsSync(join(home, 'blobs', 'sha256', ref.sha256.slice(0, 2), ref.sha256))).toBe(true);
  });

  it('refuses a bad URL in a config built in code, as loadConfig would', () => {
    const config = defaultConfig();
    config.blobStore.url = 'https://bucket';
    expect(() => openBlobStore(config)).toThrow(ConfigError);
  });

  it('fails an unreachable S3 server with a retryable error, not as a missing blob', async () => {
    const config = defaultConfig();
    config.blobStore = { url: 's3://recur-blobs', endpoint: 'http://127.0.0.1:1', region: 'us-east-1' };
    // Any credentials: the request is refused before it is signed for anyone.
    const env = { AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
    Object.assign(process.env, env);
    try {
      const err = await openBlobStore(config).get('a'.repeat(64)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(S3StoreError);
      expect(err).toMatchObject({ retryable: true, message: expect.stringContaining(`sha256/aa/${'a'.repeat(64)}`) });
    } finally {
      for (const k of Object.keys(env)) delete process.env[k];
    }
  });
});

describe('S3StoreError', () => {
  it.each([
    ['SlowDown', 503, true],
    ['InternalError', 500, true],
    ['TooManyRequests', 429, true],
    ['AccessDenied', 403, false],
    ['NoSuchBucket', 404, false],
    ['BadDigest', 400, true],
    ['InvalidDigest', 400, false],
  ])('%s (HTTP %i) is retryable: %s', (name, httpStatusCode, retryable) => {
    const err = new S3StoreError('put', 'k', Object.assign(new Error(name), { name, $metadata: { httpStatusCode } }));
    expect(err.retryable).toBe(retryable);
    expect(err.hint !== undefined).toBe(name === 'AccessDenied' || name === 'NoSuchBucket');
  });
});
