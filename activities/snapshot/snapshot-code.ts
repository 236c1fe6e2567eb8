/**
 * The Python expressions the host evaluates (silently) in a kernel to snapshot or restore it.
 * Arguments travel as one JSON document inside a string literal, as in the bootstrap: JSON's
 * escapes are all valid in a Python literal, so no value can break out of it. The expressions
 * leave no name in the agent's namespace.
 */
const MODULE = "__import__('recur_kernel._snapshot')._snapshot";

const call = (fn: string, args: object): string => `${MODULE}.${fn}(${JSON.stringify(JSON.stringify(args))})`;

export function snapshotExpression(args: {
  sessionId: string; blobsRoot: string; maxVariableBytes: number | null; maxTotalBytes: number | null;
  /** Blobs the store holds already: the kernel does not write them to its spool again. */
  stored: Iterable<string>;
}): string {
  return call('snapshot_for_host', {
    session_id: args.sessionId,
    blobs_root: args.blobsRoot,
    max_variable_bytes: args.maxVariableBytes,
    max_total_bytes: args.maxTotalBytes,
    stored: [...args.stored],
  });
}

export function restoreExpression(args: { blobsRoot: string; manifest: { variables: unknown[]; modules: unknown[] } }): string {
  return call('restore_for_host', {
    blobs_root: args.blobsRoot,
    manifest: { variables: args.manifest.variables, modules: args.manifest.modules },
  });
}
