import type { RecurConfig } from './schema';

type Env = Record<string, string | undefined>;

/** Where in a bucket the blobs live: keys are `<prefix>/sha256/<2 hex>/<hex>` (no leading slash when the prefix is empty). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

const S3_URL = /^s3:\/\/([^/?#]*)(?:\/([^?#]*))?$/;
// S3's rules for new buckets: what AWS and S3-compatible servers alike accept.
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** `s3://bucket[/prefix]`, the prefix without its slashes at either end. */
export function parseS3Url(url: string): S3Location | { error: string } {
  const expected = `expected s3://<bucket>[/<prefix>], got "${url}"`;
  const m = S3_URL.exec(url);
  if (!m) return { error: expected };
  const [, bucket, path = ''] = m;
  if (!BUCKET.test(bucket) || bucket.includes('..')) {
    return { error: `${expected}: a bucket name is 3-63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit` };
  }
  const prefix = path.replace(/^\/+|\/+$/g, '');
  if (prefix !== '' && prefix.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    return { error: `${expected}: the prefix has an empty, "." or ".." part` };
  }
  return { bucket, prefix };
}

/**
 * The standard AWS variables the S3 store is pointed with; credentials are left to the SDK's own
 * chain (AWS_ACCESS_KEY_ID, AWS_PROFILE, instance roles), which reads them where it needs them.
 */
export function readAwsEnv(config: RecurConfig, env: Env): void {
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL;
  if (endpoint) config.blobStore.endpoint = endpoint;
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION;
  if (region) config.blobStore.region = region;
}

/** Checked once everything is merged, and only when the S3 store is chosen: the AWS variables may be set for other tools. */
export function blobStoreErrors(config: RecurConfig): string[] {
  const { url, endpoint } = config.blobStore;
  if (url === null) return [];
  const errors: string[] = [];
  const location = parseS3Url(url);
  if ('error' in location) errors.push(`RECUR_BLOB_STORE (config blobStore.url): ${location.error}`);
  if (endpoint !== null && !isHttpUrl(endpoint)) {
    errors.push(`AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL (config blobStore.endpoint): expected an http:// or https:// URL, got "${endpoint}"`);
  }
  return errors;
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}
