import { join } from 'node:path';
import type { RecurConfig } from '../../config';
import { stackPaths } from '../../config/home-paths';

/** Where a host's supervisor keeps its worker's pid and log, beside its own (docs/hosts.md). */
export const hostWorkerPid = (config: RecurConfig): string => join(stackPaths(config).hostRun, 'worker.pid');
export const hostWorkerLog = (config: RecurConfig): string => join(stackPaths(config).hostLogs, 'worker.log');
