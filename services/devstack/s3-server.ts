import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import type { RecurConfig } from '../../config';
import { StackError } from '../../errors';
import { baseEnv, type ServiceDef } from './service';

/**
 * VersityGW, an S3-compatible server under Apache-2.0, for running RECUR_BLOB_STORE=s3://… against
 * a real server without an AWS account (the integration tier's stack starts one). Built from its
 * Go module, since it ships no package in a registry Recur installs from.
 */
const MODULE = 'github.com/versity/versitygw/cmd/versitygw';
export const VERSITYGW_VERSION = 'v1.8.0';

export interface S3ServerSettings {
  port: number;
  /** The posix backend's root: each directory in it is a bucket, each file below an object. */
  dataDir: string;
  /** The root user's keys (single-account mode: no IAM service). */
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

/** Where the pinned build lives: one directory per version, so a bump builds anew and nothing else does. */
export const versityGwBin = (config: RecurConfig): string => join(config.toolsDir, 'versitygw', VERSITYGW_VERSION, 'versitygw');

/** Builds the pinned VersityGW into the tools dir unless it is there (`go install`, a few minutes on 2 cores). */
export function ensureVersityGw(config: RecurConfig, log: (line: string) => void): string {
  const bin = versityGwBin(config);
  if (existsSync(bin)) return bin;
  log(`building VersityGW ${VERSITYGW_VERSION} into ${bin} (go install ${MODULE}, once)…`);
  // Into a scratch directory first: an interrupted build leaves no binary that looks installed.
  const scratch = `${bin}.build`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  // Go checks the module and its dependencies against its checksum database as it downloads them.
  const r = spawnSync('go', ['install', '-trimpath', `${MODULE}@${VERSITYGW_VERSION}`], {
    encoding: 'utf8', env: { ...process.env, GOBIN: scratch }, maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw new StackError('versitygw', 'Go (go) not found; VersityGW is built from its Go module', 'install Go 1.25 or newer and run the command again');
  if (r.status !== 0) {
    throw new StackError('versitygw', `go install ${MODULE}@${VERSITYGW_VERSION} failed:\n${r.stderr.trim().split('\n').slice(-15).join('\n')}`,
      'check that the Go module proxy is reachable and Go is 1.25 or newer, then run the command again');
  }
  renameSync(join(scratch, 'versitygw'), bin);
  rmSync(scratch, { recursive: true, force: true });
  return bin;
}

/** The server as a stack service: the caller builds it first (ensureVersityGw) and creates its buckets. */
export function s3ServerService(s: S3ServerSettings): ServiceDef {
  const endpoint = (c: RecurConfig) => `http://${c.host}:${s.port}`;
  return {
    name: 'versitygw',
    startTimeoutSeconds: 30,
    ports: () => [{ setting: 'RECUR_TEST_PORT_OFFSET', port: s.port }],
    url: endpoint,
    prepare(config) {
      mkdirSync(s.dataDir, { recursive: true });
      return {
        cmd: versityGwBin(config),
        args: ['--port', `${config.host}:${s.port}`, '--region', s.region, '--quiet', 'posix', s.dataDir],
        // Keys by environment rather than flags: a command line is readable by every user of the host.
        env: baseEnv({ ROOT_ACCESS_KEY_ID: s.accessKeyId, ROOT_SECRET_ACCESS_KEY: s.secretAccessKey }),
        marker: s.dataDir,
      };
    },
    async healthy(config) {
      // A signed request: it answers only once the server is up and takes the root user's keys.
      const client = new S3Client({
        endpoint: endpoint(config), forcePathStyle: true, region: s.region, maxAttempts: 1,
        credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
        requestHandler: { connectionTimeout: 1000, requestTimeout: 1000 },
      });
      try {
        await client.send(new ListBucketsCommand({}));
        return true;
      } catch {
        return false;
      } finally {
        client.destroy();
      }
    },
  };
}
