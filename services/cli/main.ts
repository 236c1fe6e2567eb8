import { ExitError, RecurError } from '../../errors';
import { traceCli } from '../../observability/cli-tracing';
import { ownerOnlyUmask } from '../devstack/owner-only';
import { runCli } from './cli';

ownerOnlyUmask();

/** The only place Recur calls process.exit. */
const argv = process.argv.slice(2);
traceCli(argv, () => runCli(argv)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof ExitError) {
      if (e.message) console.error(`recur: ${e.message}`);
      process.exit(e.code);
    }
    if (e instanceof RecurError) {
      console.error(`recur: ${e.message}${e.hint ? `\n  → ${e.hint}` : ''}`);
      process.exit(1);
    }
    console.error('recur: internal error — this is a bug, please report it with the output below.');
    console.error(e);
    process.exit(70);
  },
);
