import type { OversizeVariable, RestoreFailure, UnsavedVariable } from '../../schemas';
import { SnapshotError } from './snapshot-error';

/** Bumped when a reader of an older manifest would misread a newer one. */
export const MANIFEST_FORMAT = 'recur.kernel-snapshot/1';

export type Pickler = 'pickle' | 'cloudpickle' | 'dill';
const PICKLERS: readonly string[] = ['pickle', 'cloudpickle', 'dill'];

export interface ManifestVariable {
  name: string;
  /** The variable's pickle in the blob store. */
  sha256: string;
  size: number;
  /** Which pickler wrote it, so the restore loads it with the same one. */
  pickler: Pickler;
  /** Not in the namespace when snapshotted: it failed to restore earlier and is kept for a later try. */
  carried?: boolean;
}

/** A module the namespace held, re-imported by name on restore. */
export interface ManifestModule {
  name: string;
  module: string;
  carried?: boolean;
}

export interface SnapshotLimits {
  maxVariableBytes: number | null;
  maxTotalBytes: number | null;
}

/** What `recur_kernel._snapshot.snapshot_for_host` answers: the manifest's contents plus what it wrote. */
export interface KernelSnapshotReport {
  variables: ManifestVariable[];
  modules: ManifestModule[];
  unsaved: UnsavedVariable[];
  oversize: OversizeVariable[];
  bytes: number;
  /** Blobs (and their bytes) this snapshot stored for the first time. */
  written: number;
  writtenBytes: number;
  python: string;
  picklers: Record<string, string | number | null>;
}

/** What `recur_kernel._snapshot.restore_for_host` answers. */
export interface KernelRestoreReport {
  restored: string[];
  failed: RestoreFailure[];
}

/** The JSON stored as the manifest blob that KernelSnapshotted points at. */
export interface SnapshotManifest {
  format: typeof MANIFEST_FORMAT;
  coversSeq: number;
  python: string;
  picklers: Record<string, string | number | null>;
  limits: SnapshotLimits;
  variables: ManifestVariable[];
  modules: ManifestModule[];
  unsaved: UnsavedVariable[];
  oversize: OversizeVariable[];
  bytes: number;
}

/** Fixed key order, so an equal manifest always serializes (and hashes) the same. */
export function buildManifest(report: KernelSnapshotReport, coversSeq: number, limits: SnapshotLimits): SnapshotManifest {
  const { python, picklers, variables, modules, unsaved, oversize, bytes } = report;
  return { format: MANIFEST_FORMAT, coversSeq, python, picklers, limits, variables, modules, unsaved, oversize, bytes };
}

export function parseManifest(bytes: Uint8Array): SnapshotManifest {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (err) {
    throw new SnapshotError(`manifest is not JSON: ${(err as Error).message}`);
  }
  const m = record(value, 'manifest');
  if (m.format !== MANIFEST_FORMAT) throw new SnapshotError(`manifest format ${JSON.stringify(m.format)} is not ${MANIFEST_FORMAT}`);
  number(m.coversSeq, 'manifest.coversSeq');
  checkReportParts(m, 'manifest');
  return value as SnapshotManifest;
}

export function parseSnapshotReport(value: unknown): KernelSnapshotReport {
  const r = record(value, 'kernel snapshot report');
  checkReportParts(r, 'kernel snapshot report');
  number(r.written, 'written');
  number(r.writtenBytes, 'writtenBytes');
  return value as KernelSnapshotReport;
}

export function parseRestoreReport(value: unknown): KernelRestoreReport {
  const r = record(value, 'kernel restore report');
  array(r.restored, 'restored').forEach((n, i) => string(n, `restored[${i}]`));
  array(r.failed, 'failed').forEach((f, i) => named(f, `failed[${i}]`, 'reason'));
  return value as KernelRestoreReport;
}

function checkReportParts(r: Record<string, unknown>, where: string): void {
  string(r.python, `${where}.python`);
  record(r.picklers, `${where}.picklers`);
  number(r.bytes, `${where}.bytes`);
  array(r.variables, `${where}.variables`).forEach((v, i) => {
    const at = `${where}.variables[${i}]`;
    const entry = named(v, at, 'sha256');
    if (!/^[0-9a-f]{64}$/.test(entry.sha256 as string)) throw new SnapshotError(`${at}.sha256 is not a SHA-256 hex digest`);
    number(entry.size, `${at}.size`);
    if (!PICKLERS.includes(entry.pickler as string)) throw new SnapshotError(`${at}.pickler ${JSON.stringify(entry.pickler)} is unknown`);
  });
  array(r.modules, `${where}.modules`).forEach((m, i) => named(m, `${where}.modules[${i}]`, 'module'));
  array(r.unsaved, `${where}.unsaved`).forEach((u, i) => named(u, `${where}.unsaved[${i}]`, 'reason'));
  array(r.oversize, `${where}.oversize`).forEach((o, i) => {
    const entry = named(o, `${where}.oversize[${i}]`, 'limit');
    number(entry.size, `${where}.oversize[${i}].size`);
  });
}

function record(v: unknown, where: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new SnapshotError(`${where} is not an object`);
  return v as Record<string, unknown>;
}

function array(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) throw new SnapshotError(`${where} is not an array`);
  return v;
}

function string(v: unknown, where: string): string {
  if (typeof v !== 'string') throw new SnapshotError(`${where} is not a string`);
  return v;
}

function number(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new SnapshotError(`${where} is not a number`);
  return v;
}

/** An object with a string `name` and a string `field`. */
function named(v: unknown, where: string, field: string): Record<string, unknown> {
  const r = record(v, where);
  string(r.name, `${where}.name`);
  string(r[field], `${where}.${field}`);
  return r;
}
