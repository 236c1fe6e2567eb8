import { loadConfig } from '../../config';
import { down } from '../../services/devstack';

/** Leaves the stack running when RECUR_TEST_KEEP_STACK=1, for looking at it after a failure. */
export default async function globalTeardown(): Promise<void> {
  if (process.env.RECUR_TEST_KEEP_STACK === '1') return;
  await down(loadConfig());
}
