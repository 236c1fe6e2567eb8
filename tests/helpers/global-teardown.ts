import { loadConfig } from '../../config';
import { down, stopService } from '../../services/devstack';
import { recordHistories } from './record-histories';
import { testS3Service } from './test-stack';

/**
 * Leaves the stack running when RECUR_TEST_KEEP_STACK=1, for looking at it after a failure.
 * RECUR_RECORD_HISTORIES=DIR first writes the workflow histories the tier made that cover every
 * feature into DIR (docs/workflows.md "Replay tests").
 */
export default async function globalTeardown(): Promise<void> {
  const config = loadConfig();
  const record = process.env.RECUR_RECORD_HISTORIES;
  if (record) process.stderr.write(`recorded ${await recordHistories(config, record)} workflow histories into ${record}\n`);
  if (process.env.RECUR_TEST_KEEP_STACK === '1') return;
  await down(config);
  await stopService(config, testS3Service());
}
