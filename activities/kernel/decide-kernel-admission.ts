import type { LoadedKernel } from './jupyter-sessions';

export type KernelAdmission =
  /** Start (or reattach) the kernel now. */
  | { kind: 'admit' }
  /** The host is full: `count` of `candidates` (least recently active first) must unload first. */
  | { kind: 'free'; count: number; candidates: string[] };

/**
 * Whether `sessionId` may have a kernel on a host holding `loaded`, at most `max` at once. A
 * session whose kernel is already loaded is never refused (a worker restart reattaches it). Pure.
 */
export function decideKernelAdmission(sessionId: string, loaded: readonly LoadedKernel[], max: number): KernelAdmission {
  if (loaded.length < max || loaded.some((k) => k.sessionId === sessionId)) return { kind: 'admit' };
  const candidates = [...loaded]
    .sort((a, b) => a.lastActivityMs - b.lastActivityMs || (a.sessionId < b.sessionId ? -1 : 1))
    .map((k) => k.sessionId);
  return { kind: 'free', count: loaded.length - max + 1, candidates };
}
