import { isDeltaFrame, type DeltaFrame } from './api-types';

export interface DeltaHub {
  /** Takes what the worker sent; anything but a well-formed delta is ignored. */
  publish(message: unknown): void;
  /** Calls `listener` with each delta of the tree under `sessionId` until the returned function is called. */
  subscribe(sessionId: string, listener: (delta: DeltaFrame) => void): () => void;
}

const inTree = (sessionId: string, treeId: string): boolean => sessionId === treeId || sessionId.startsWith(`${treeId}/`);

/** Fans the worker's model text deltas out to the streams that asked for them; keeps nothing. */
export function createDeltaHub(): DeltaHub {
  const listeners = new Map<(delta: DeltaFrame) => void, string>();
  return {
    publish(message) {
      if (!isDeltaFrame(message)) return;
      const { sessionId, turn, text } = message;
      for (const [listener, treeId] of listeners) if (inTree(sessionId, treeId)) listener({ kind: 'delta', sessionId, turn, text });
    },
    subscribe(sessionId, listener) {
      const own = (delta: DeltaFrame): void => listener(delta);
      listeners.set(own, sessionId);
      return () => void listeners.delete(own);
    },
  };
}
