/**
 * Everything under the Recur home is the owner's alone (0700 directories, 0600 files): blobs,
 * skills, the event log's Kafka data, Temporal's database, Jupyter's runtime and config, logs,
 * pids, secrets, telemetry. One mechanism gives that: each entry point that writes under the home
 * (the CLI, the daemon, the worker, the test tier) calls `ownerOnlyUmask()` first, and every
 * process it starts (Kafka, Temporal, Jupyter and its kernels, the daemon, the worker) inherits
 * the umask, so files third-party code creates are owner-only as well as Recur's own.
 */
const OWNER_ONLY = 0o077;

/** The umask the process had before it went owner-only; what tools are installed under. */
let callerUmask: number | undefined;

export function ownerOnlyUmask(): void {
  const before = process.umask(OWNER_ONLY);
  callerUmask ??= before;
}

/**
 * Runs `f` under the umask the user had. For the tools dir (venv, Kafka jars): it is not the
 * home's, it may be shared between homes and users, and nothing secret is in it.
 */
export function withCallerUmask<T>(f: () => T): T {
  if (callerUmask === undefined) return f();
  const own = process.umask(callerUmask);
  try {
    return f();
  } finally {
    process.umask(own);
  }
}
