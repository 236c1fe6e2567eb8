/**
 * One root for every error Recur raises. `retryable` says whether repeating the same call may
 * succeed; activities turn `retryable: false` into a non-retryable Temporal failure.
 */
export class RecurError extends Error {
  readonly retryable: boolean;
  /** Shown to users after the message: what to do about it. */
  readonly hint?: string;

  constructor(message: string, opts: { retryable?: boolean; cause?: unknown; hint?: string } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.retryable = opts.retryable ?? false;
    this.hint = opts.hint;
  }
}

export class ConfigError extends RecurError {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
  }
}

/** A local service (Kafka, Temporal, Jupyter, the venv) is missing, broken or unreachable. */
export class StackError extends RecurError {
  constructor(readonly service: string, message: string, hint?: string, cause?: unknown) {
    super(`${service}: ${message}`, { hint, cause, retryable: false });
  }
}

/** An event could not be encoded, decoded or verified. */
export class EventLogError extends RecurError {}

/** An append would break a session's sequence: `seq` is not the next one, or the head hash differs. */
export class EventGapError extends EventLogError {
  constructor(readonly sessionId: string, readonly expected: number, readonly got: number) {
    super(`session ${sessionId}: expected seq ${expected}, got ${got}`);
  }
}

/** The kernel died or was lost while a cell ran. */
export class KernelLostError extends RecurError {
  constructor(readonly sessionId: string, readonly kernelId: string, message = 'kernel lost') {
    super(`${message} (session ${sessionId}, kernel ${kernelId})`, { retryable: true });
  }
}

/** A model provider failed; 429 and 5xx are retryable, other 4xx are not. */
export class ProviderError extends RecurError {
  constructor(
    readonly provider: string,
    message: string,
    readonly status?: number,
    opts: { retryable?: boolean; cause?: unknown } = {},
  ) {
    super(`${provider}: ${message}`, opts);
  }
}

/** What a throttled provider said, as the workflow needs it to wait and log `ModelThrottled`. */
export interface ThrottleInfo {
  provider: string;
  /** The HTTP status (429, or Anthropic's 529 overloaded). */
  status: number;
  /** The API's own words: reason and message, as ProviderError reads them. */
  reason: string;
  /** When the provider says calls will pass again (epoch ms). */
  resetAtMs: number;
  /** The model spec and the call's key, once the model activity has added them. */
  model?: string;
  idempotencyKey?: string;
}

/**
 * A provider throttled the call for longer than an activity should sleep (or past every retry):
 * not retried by the activity; the workflow waits until `resetAtMs` on a durable timer and calls
 * again with the same idempotency key.
 */
export class ThrottledError extends ProviderError {
  constructor(readonly info: ThrottleInfo) {
    super(info.provider, `throttled: ${info.reason}; resets at ${new Date(info.resetAtMs).toISOString()}`, info.status, { retryable: false });
  }
}

/** The scripted model has no reply left for this agent. */
export class ScriptExhaustedError extends RecurError {
  constructor(readonly agent: string, readonly calls: number) {
    super(`scripted model: agent "${agent}" has no reply left after ${calls} call(s)`, { retryable: false });
  }
}

/** A sub-agent the caller waited on ended without an answer. */
export class SubagentFailedError extends RecurError {
  constructor(readonly childId: string, readonly status: string, reason: string) {
    super(`sub-agent ${childId} ${status}: ${reason}`);
  }
}

/** A kernel asked for something its session may not do (non-family message, other session's token). */
export class ScopeError extends RecurError {}

/** A bounded resource is used up; `setting` names what raises the limit. Not retryable: the caller reports it and goes on. */
export class LimitError extends RecurError {
  constructor(message: string, readonly setting: string) {
    super(`${message} (setting: ${setting})`, { retryable: false });
  }
}

/** A harness edit, revert or refine that was refused (and logged as refused); the message says why. */
export class HarnessEditError extends RecurError {}

/** A CLI command ended as expected but not successfully; main.ts exits with `code`. */
export class ExitError extends RecurError {
  constructor(readonly code: number, message = '') {
    super(message);
  }
}

/** Which request field a 400 is about and what it may hold, for clients that show more than the message. */
export interface FieldRange {
  field: string;
  allowed: string;
}

/** The JSON body of every error reply, the daemon's and the host bridge's. */
export interface ErrorBody {
  /** A 400 about one numeric field also names it and its allowed range (`field: "limits.maxDepth", allowed: "an integer 0..8"`). */
  error: { name: string; message: string; field?: string; allowed?: string };
}

/** A refusal with the HTTP status to answer with: a handler throws it, the server turns it into an ErrorBody. */
export class HttpError extends RecurError {
  constructor(readonly status: number, message: string, readonly errorName = 'HttpError', readonly range?: FieldRange) {
    super(message, { retryable: status >= 500 });
  }
}

/**
 * The one mapping from an error to a reply, for the daemon's API and the kernels' host bridge
 * alike: a kernel raises an exception whose builtin base follows the status (403 PermissionError,
 * other 4xx ValueError), so the same error means the same thing to both callers.
 */
export function toErrorReply(err: unknown): { status: number; body: ErrorBody } {
  const reply = (status: number, name: string, message: string, range?: FieldRange) => ({ status, body: { error: { name, message, ...range } } });
  if (err instanceof HttpError) return reply(err.status, err.errorName, err.message, err.range);
  if (err instanceof ScopeError) return reply(403, err.name, err.message);
  // The log is unreachable or holds something unreadable: the service, not the request, is at fault.
  if (err instanceof EventLogError) return reply(503, err.name, err.message);
  // A Recur error the request ran into (a limit, a refused edit): the request cannot be done as it stands.
  if (err instanceof RecurError) return reply(err.retryable ? 503 : 422, err.name, err.message);
  if (err instanceof Error) return reply(500, err.name, err.message);
  return reply(500, 'Error', String(err));
}
