import type { BlobStore } from '../../activities/blob-store';
import type { RecurConfig } from '../../config';
import type { TreeVerdict } from '../../log/verify-tree';
import type { TreeView } from '../projector/tree-cache';
import type { CatalogReply, TreeLog, WorkerState } from './api-types';
import type { SessionService } from './session-service';

/** One API request as the routes see it (http-server.ts parses it). */
export interface ApiRequest {
  method: string;
  /** URL path split on `/` and percent-decoded per segment, so an encoded session id is one segment. */
  segments: string[];
  query: URLSearchParams;
  /** Parsed JSON body; undefined when there was none. */
  body: unknown;
}

export interface ApiReply {
  status: number;
  body: unknown;
  /** A binary reply (a blob): sent as application/octet-stream with its headers, in place of `body` as JSON. */
  binary?: { bytes: Uint8Array; headers: Record<string, string> };
  /** A reply of JSON lines (application/x-ndjson), in place of `body`: written one at a time as the client reads them. */
  lines?: Iterable<string>;
}

export interface RouteDeps extends ViewerDeps {
  config: RecurConfig;
  sessions: SessionService;
  worker: () => WorkerState;
  readLog: (sessionId: string) => Promise<TreeLog>;
  /** The environment the stack's worker calls models in (the daemon's own, which it passes on): where a start's keys are checked. */
  modelEnv: NodeJS.ProcessEnv;
}

/** What the viewer's read routes read: each a whole answer, so a route only shapes it. */
export interface ViewerDeps {
  /** The tree under a session and its root's harness log, in one read of the topic. */
  readTree: (sessionId: string) => Promise<TreeView>;
  /** `recur audit verify <id>`'s verdict, with every key the home ever signed with. */
  verifyTree: (sessionId: string) => Promise<TreeVerdict>;
  /** The store the worker writes cell outputs, responses and snapshots to. */
  blobs: BlobStore;
  catalog: () => Promise<CatalogReply>;
}
