import type { ApprovalPolicy } from '../workflows/approvals/approval-policy';

/** The whole of Recur's configuration. Every service reads it through `loadConfig`; nothing else reads the environment. */
export interface RecurConfig {
  /** Data directory: venv, Kafka log dirs, Temporal's SQLite file, blobs, pid files, logs. */
  home: string;
  /** Installed tools (venv, Temporal CLI, Kafka jars); shared by every home that points here. */
  toolsDir: string;
  host: string;
  /**
   * This machine's host in the cluster (docs/hosts.md): a worker plus its own Jupyter server,
   * whose kernel-bound activities come on the task queue `<taskQueue>@<hostId>`. `local` is the
   * host `recur up` runs; `recur host start --id` runs others.
   */
  hostId: string;
  ports: {
    kafka: number;
    kafkaController: number;
    temporal: number;
    temporalHttp: number;
    temporalMetrics: number;
    jupyter: number;
    daemon: number;
  };
  kafka: {
    /** The event log topic. Keyed by session id, append-only, never compacted. */
    topic: string;
    partitions: number;
    clientId: string;
    /** JVM heap for the embedded broker. */
    heap: string;
    /** An external cluster's bootstrap brokers (`host:port`); empty: the embedded broker, which `recur up` starts and secures itself. */
    brokers: string[];
    /** How Recur authenticates to an external cluster (the embedded one uses SCRAM users of its own). */
    sasl: KafkaSasl;
    tls: TlsFiles;
  };
  temporal: {
    namespace: string;
    taskQueue: string;
    /** An external Temporal frontend (`host:port`); null: the embedded dev server. */
    address: string | null;
    tls: TlsFiles;
    /** File holding an API key (Temporal Cloud), sent as a bearer token; null: none. */
    apiKeyFile: string | null;
  };
  agent: {
    /** Default model for `recur run` (`provider/model` or `scripted:<file>`); null: each run must name one. */
    model: string | null;
    /** A model that takes over a run throttled on its own for `backupAfterMinutes` in all (docs/providers.md); null: none. */
    backupModel: string | null;
    /** Throttled minutes, summed over a run's waits, after which `backupModel` takes over. */
    backupAfterMinutes: number;
    /**
     * Directories `scripted:<file>` models may be read from (symlinks resolved). A script
     * anywhere else is refused unread, so an agent naming `scripted:/etc/passwd` gets an error.
     */
    scriptedDirs: string[];
    cellTimeoutSeconds: number;
    maxDepth: number;
    maxTurns: number;
    idleUnloadSeconds: number;
    /** Model turns per workflow run before it continues-as-new (keeps each run's history short). */
    turnsPerRun: number;
    /** Cells between kernel snapshots (a restore re-runs at most this many cells). */
    snapshotEveryCells: number;
    /** Estimated prompt tokens past which older turns are summarised (compaction); keep below the model's context window. */
    compactAtTokens: number;
    /** Bytes of each workspace instruction file (AGENTS.md, CLAUDE.md) shown in the prompt; past it the file is cut with a note. */
    contextFileMaxBytes: number;
    /** Children one session may spawn over its life. */
    maxChildren: number;
    /** Sessions one tree may hold over its life, its root included. */
    maxTreeSessions: number;
    /** Messages a session may send a minute, sustained, and at once (a token bucket on workflow time). */
    messagesPerMinute: number;
    messageBurst: number;
    /**
     * Kernels one host (a worker and its Jupyter server) keeps loaded at once. Past it the least
     * recently used idle retained sub-agents are unloaded early; with none, the cell is refused.
     */
    maxLoadedKernels: number;
  };
  /**
   * Limits of `recur run --autonomous`, sized for unattended overnight runs; each ends the run with a
   * wrap-up turn. maxTurns caps each session; the others are the tree's budget unless the run's
   * --budget-* flags set it (docs/budgets.md).
   */
  autonomous: {
    maxTurns: number;
    maxTokens: number;
    maxCostUsd: number;
    maxSeconds: number;
    /** Model calls the whole tree may make. */
    maxTreeTurns: number;
    /** Longest one quality-gate command may run. */
    gateTimeoutSeconds: number;
  };
  harness: {
    /** Name of the global harness scope (its workflow and log are `harness:<name>`); tests use a fresh one. */
    globalScope: string;
    /** What /refine does with valid proposed edits: apply them (`auto`) or log them as proposed until approved. */
    refineApply: 'auto' | 'approve';
    /** Run /refine on a root session every this many model turns; 0 turns auto-refine off. */
    autoRefineTurns: number;
  };
  /** The bubblewrap sandbox every kernel runs in (docs/sandbox.md); each setting is recorded in SessionStarted. */
  sandbox: {
    /** `off` runs kernels bare, with the agent inside the trust boundary: for hosts that cannot create namespaces. */
    mode: 'on' | 'off';
    /** Address space per kernel (MiB); past it an allocation raises MemoryError. */
    memoryMiB: number;
    /** Processes and threads per kernel; past it fork raises BlockingIOError. */
    maxProcesses: number;
    maxOpenFiles: number;
    /** Largest file a kernel may write (MiB); past it a write raises OSError (EFBIG). */
    maxFileMiB: number;
    /** Outbound network of a session's kernel by default (config/net-policy.ts): `none`, `full` or `allow:HOST[:PORT],…`. */
    net: string;
  };
  /**
   * What an agent must not do alone (docs/approvals.md): the policy sessions start with, from
   * `policyFile` (RECUR_APPROVAL_POLICY, JSON of these fields) over the defaults, then the env.
   */
  approvals: ApprovalPolicy & {
    /** A JSON file holding any of the policy's fields; null: defaults and config.json only. */
    policyFile: string | null;
  };
  /** Where blobs and kernel snapshots are kept (docs/blob-store.md); every worker, daemon and CLI of a home must agree. */
  blobStore: {
    /** `s3://<bucket>[/<prefix>]` (RECUR_BLOB_STORE); null: the home's own `blobs/` directory. */
    url: string | null;
    /** An S3-compatible server (AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL), addressed path-style; null: AWS S3 itself. */
    endpoint: string | null;
    /** AWS_REGION (else AWS_DEFAULT_REGION); null: the SDK's own lookup (the profile's region). */
    region: string | null;
  };
  /** What one worker process may hold in memory. */
  worker: {
    /** Bytes of session logs the worker keeps in memory (MiB); the least recently used sessions are dropped beyond it and re-read from Kafka. */
    transcriptCacheMiB: number;
    /** Workspace files larger than this (KiB) are summarised by size in WorkspaceChanged, never hashed or diffed. */
    workspaceMaxFileKiB: number;
    /**
     * Session workflows the worker keeps in memory between their workflow tasks (about 1 MiB
     * each); beyond it the least recently run are evicted and replayed from their history at
     * their next task, so a tree of many idle retained sub-agents does not grow the worker.
     */
    cachedWorkflows: number;
    /** CPU slots of this host's job pool (docs/jobs.md): jobs wait, in submit order, until the slots they ask for are free. */
    jobCpus: number;
    /**
     * What runs this host's jobs: `local` (its own CPU pool), `slurm` (sbatch on the cluster this
     * host submits to) or `virtual` (the local pool, each job held on the workflow clock for the
     * run time it reports: long-horizon runs on a time-skipping Temporal server, docs/jobs.md).
     */
    jobExecutor: 'local' | 'slurm' | 'virtual';
    /** The Slurm partition jobs go to; null: the cluster's default partition. */
    slurmPartition: string | null;
    /**
     * Workspace files that run later outside Recur (docs/sandbox.md, "Sensitive paths"): a scan
     * flags a change to one in WorkspaceChanged. The defaults, then the rules config.json or
     * RECUR_SENSITIVE_PATHS (comma-separated) add.
     */
    sensitivePaths: string[];
  };
  /** `local/<name>` models, run on the worker's CPU (docs/local-model.md). */
  local: {
    /** Directory of other GGUF files, each `local/<file stem>`; null: only the pinned models `recur setup` installs. */
    modelsDir: string | null;
    /** CPU threads a local model computes with. */
    threads: number;
    /** The context window (prompt plus reply) a local model is loaded with, in tokens. */
    contextTokens: number;
    /** Reply length in tokens when a call sets none. */
    maxTokens: number;
  };
  /** `recur run --ci` and `recur attach --ci` (docs/ci.md): read from the CI's own variables, not RECUR_*. */
  ci: {
    /** CI mode unless `--no-ci`: on when the environment says `CI=true` (or `1`), as GitHub Actions, GitLab and most runners set it. */
    enabled: boolean;
    /** GitHub Actions' job summary file (`GITHUB_STEP_SUMMARY`); a CI run's Markdown summary is appended to it. Null: not set. */
    stepSummary: string | null;
    /** GitHub Actions' step outputs file (`GITHUB_OUTPUT`); a CI run appends `session=<id>` to it as it starts. Null: not set. */
    stepOutput: string | null;
  };
  /** The audit viewer the daemon serves at `/ui/` (docs/viewer.md). */
  ui: {
    /** Seconds a `recur ui` sign-in code stays valid (it is good for one sign-in). */
    codeSeconds: number;
    /** Seconds a browser stays signed in (the cookie's Max-Age); a daemon restart signs it out sooner. */
    sessionSeconds: number;
    /** Base URL of a Temporal UI the viewer links workflows to (when it answers); null: no links. */
    temporalUiUrl: string | null;
    /** Link template for an event's trace id, holding `{traceId}`; null: trace ids are shown as text. */
    traceUrl: string | null;
    /** MiB of log records the daemon keeps decoded for the trees the viewer opened; the least recently read go first. */
    cacheMiB: number;
  };
  /** Interpreter used to create the Recur venv; the venv itself lives under `home`. */
  python: string;
  java: string;
  /** The Chromium the browser tests and the viewer bench drive (Debian's package; `recur setup --browser` installs it). */
  chromium: string;
}

export type SaslMechanism = 'none' | 'plain' | 'scram-sha-256' | 'scram-sha-512';

/**
 * Secrets are named by file, never held in config.json or the environment: both reach more
 * processes (the daemon passes its config on as variables) than the one that uses the secret.
 */
export interface KafkaSasl {
  mechanism: SaslMechanism;
  /** The principal that writes the event log (the worker). */
  username: string | null;
  passwordFile: string | null;
  /** A read-only principal for readers (CLI, daemon, audit, projector); null: they use the writer's. */
  readerUsername: string | null;
  readerPasswordFile: string | null;
}

/** TLS to an external service: the server is checked against `caFile` (null: the system roots); cert and key together give mTLS. */
export interface TlsFiles {
  enabled: boolean;
  caFile: string | null;
  certFile: string | null;
  keyFile: string | null;
  /** Name the server's certificate must carry when it differs from the address's host. */
  serverName: string | null;
}

export interface ParsedConfig {
  config: RecurConfig;
  warnings: string[];
  errors: string[];
}
