import type { RecurConfig } from '../config';
import { parseS3Url } from '../config/blob-store';
import { stackPaths } from '../config/home-paths';
import { ConfigError } from '../errors';
import { createLocalBlobStore, type BlobStore } from './blob-store';
import { createS3BlobStore } from './blob-store-s3';

/** The one store a home's worker, daemon and CLI commands share: RECUR_BLOB_STORE's bucket, or the home's `blobs/`. */
export function openBlobStore(config: RecurConfig): BlobStore {
  const { url, endpoint, region } = config.blobStore;
  if (url === null) return createLocalBlobStore(stackPaths(config).blobs);
  // loadConfig has refused a bad URL already; a config assembled in code has not.
  const location = parseS3Url(url);
  if ('error' in location) throw new ConfigError([`RECUR_BLOB_STORE: ${location.error}`]);
  return createS3BlobStore({ ...location, endpoint, region });
}
