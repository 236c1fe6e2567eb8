/** Task queue names of the cluster (docs/hosts.md); pure, so workflows and workers agree on them. */

/** Where a host's worker takes the kernel-bound activities of the sessions placed on it. */
export const hostTaskQueue = (taskQueue: string, hostId: string): string => `${taskQueue}@${hostId}`;

/** The one registry of a task queue's hosts; it runs on that queue. */
export const hostRegistryId = (taskQueue: string): string => `recur-hosts/${taskQueue}`;

/** The host `recur up` runs beside the daemon; every session ran there before hosts existed. */
export const DEFAULT_HOST_ID = 'local';
