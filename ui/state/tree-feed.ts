/**
 * Follows one session tree for the page: loads it (showing the first lines of the reply while
 * the rest arrives), then the events WebSocket from the loaded cursor, folding frames in batches
 * (one causal merge per batch, not per frame). A
 * socket that drops while the session runs is reopened with backoff from the cursor held, so
 * nothing repeats or goes missing; the daemon's 'session closed' ends live mode, after which the
 * log's tail (anything logged after the stream's last read) is paged in and the tree re-verified.
 * The daemon is reached through `FeedDeps` (ui/state/api.ts in the page), so this runs without a DOM.
 */
import type { LogReply, StreamFrame } from '../../services/daemon/api-types';
import type { TreeVerdict } from '../../log/verify-tree';
import type { TreeLine } from '../../services/daemon/api-types';
import { TreeAssembler } from '../../services/daemon/tree-lines';
import { afterParam, applyFrames, fromReply, loadingModel, reconnectDelay, type TreeModel } from './tree-model';

export interface FeedState {
  model: TreeModel | null;
  live: boolean;
  verdict: TreeVerdict | null;
  error: string | null;
}

export interface SocketHandlers {
  message(text: string): void;
  closed(code: number, reason: string): void;
}
export interface EventSocket {
  close(): void;
}

export interface FeedDeps {
  getJson<T>(path: string): Promise<T>;
  /** A JSON-lines reply, each line parsed as it arrives; `signal` stops the reading. */
  getLines(path: string, onLine: (value: unknown) => void, signal: AbortSignal): Promise<void>;
  openEvents(rootId: string, after: string, on: SocketHandlers): EventSocket;
  isSignedOut(): boolean;
  /** Whether a tree can still grow (a daemon's log); an audit bundle's never does, so it is loaded and verified, not followed. */
  readonly live: boolean;
}

const SESSION_CLOSED = 'session closed';
/** How long frames gather before one fold: live updates stay smooth without a re-order per frame. */
export const BATCH_MS = 100;
/** While a large tree loads, the rows are re-derived at most this often (the first lines show at once). */
export const LOAD_SHOW_MS = 250;

export class TreeFeed {
  private state: FeedState = { model: null, live: false, verdict: null, error: null };
  private socket: EventSocket | null = null;
  private pending: StreamFrame[] = [];
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private attempt = 0;
  private disposed = false;
  private readonly loading = new AbortController();
  private readonly base: string;

  constructor(private readonly rootId: string, private readonly deps: FeedDeps, private readonly emit: (state: FeedState) => void) {
    this.base = `/v1/sessions/${encodeURIComponent(rootId)}`;
  }

  async start(): Promise<void> {
    const tree = new TreeAssembler();
    let version = 0;
    let shownAt = -Infinity;
    try {
      await this.deps.getLines(`${this.base}/tree`, (line) => {
        tree.accept(line as TreeLine);
        const head = tree.started()!;
        const now = Date.now();
        if (tree.complete() || tree.received().length === 0 || now - shownAt < LOAD_SHOW_MS) return;
        shownAt = now;
        this.set({ model: loadingModel(this.rootId, head, tree.received(), ++version) });
      }, this.loading.signal);
      if (this.disposed) return;
      this.set({ model: fromReply(this.rootId, tree.reply(), ++version), live: this.deps.live });
      if (this.deps.live) this.connect();
      this.recheck();
    } catch (err) {
      if (!this.disposed) this.set({ error: (err as Error).message });
    }
  }

  recheck(): void {
    this.set({ verdict: null });
    this.deps.getJson<TreeVerdict>(`${this.base}/verify`).then(
      (verdict) => this.set({ verdict }),
      (err: Error) => this.set({ error: err.message }),
    );
  }

  dispose(): void {
    this.disposed = true;
    this.loading.abort();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.socket?.close();
  }

  private set(patch: Partial<FeedState>): void {
    if (this.disposed) return;
    this.state = { ...this.state, ...patch };
    this.emit(this.state);
  }

  private connect(): void {
    this.socket = this.deps.openEvents(this.rootId, afterParam(this.state.model!), {
      message: (text) => {
        this.attempt = 0;
        this.pending.push(JSON.parse(text) as StreamFrame);
        this.flushTimer ??= setTimeout(() => this.flush(), BATCH_MS);
      },
      closed: (code, reason) => {
        this.flush();
        if (this.disposed || this.deps.isSignedOut()) return;
        if (code === 1000 && reason === SESSION_CLOSED) void this.finish();
        else this.reconnect();
      },
    });
  }

  /** A refused upgrade shows the page no status, so a cheap request first tells a lost sign-in (401) from a daemon away. */
  private reconnect(): void {
    this.retryTimer = setTimeout(() => {
      this.deps.getJson('/v1/ui/info').then(
        () => { if (!this.disposed) this.connect(); },
        () => { if (!this.disposed && !this.deps.isSignedOut()) this.reconnect(); },
      );
    }, reconnectDelay(this.attempt++));
  }

  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const frames = this.pending;
    this.pending = [];
    const model = this.state.model!;
    const next = applyFrames(model, frames);
    if (next !== model) this.set({ model: next });
  }

  /** The stream ended with the session: page in what it logged after the stream's last read, then verify. */
  private async finish(): Promise<void> {
    this.set({ live: false });
    try {
      for (let more = true; more && !this.disposed;) {
        const page = await this.deps.getJson<LogReply>(`${this.base}/log?limit=5000&after=${afterParam(this.state.model!)}`);
        this.set({ model: applyFrames(this.state.model!, page.events) });
        more = page.more;
      }
    } catch (err) {
      this.set({ error: (err as Error).message });
    }
    this.recheck();
  }
}
