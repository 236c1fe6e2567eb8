import { inspect } from 'node:util';
import { stripControls } from '../../activities/control-text';
import { ExitError, RecurError } from '../../errors';
import { traceCli } from '../../observability/cli-tracing';
import { ownerOnlyUmask } from '../home/owner-only';
import { runCli } from './cli';

ownerOnlyUmask();

/** The only place Recur calls process.exit. */
const argv = process.argv.slice(2);
// An error's message can quote agent text (a reason, a name): as terminal-safe as every other line.
const printError = (text: string): void => console.error(stripControls(text));
traceCli(argv, () => runCli(argv)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof ExitError) {
      if (e.message) printError(`recur: ${e.message}`);
      process.exit(e.code);
    }
    if (e instanceof RecurError) {
      printError(`recur: ${e.message}${e.hint ? `\n  → ${e.hint}` : ''}`);
      process.exit(1);
    }
    printError('recur: internal error — this is a bug, please report it with the output below.');
    printError(inspect(e));
    process.exit(70);
  },
);
