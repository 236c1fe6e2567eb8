/** What a kernel needs to act as its session. Sent as cell code, never through the server's environment. */
export interface BootstrapParams {
  sessionId: string;
  /** The host bridge URL and this session's token; null when the client runs without a bridge. */
  hostUrl: string | null;
  token: string | null;
  env?: Record<string, string>;
  /** Directory holding `recur_kernel`, when the server's PYTHONPATH may lack it. */
  pythonPath?: string;
}

/** Python that puts `dir` first on sys.path unless it is there, leaving no name behind. */
export function pythonPathCode(dir: string): string {
  const lit = JSON.stringify(dir);
  return `${lit} in __import__('sys').path or __import__('sys').path.insert(0, ${lit})`;
}

/** Read back through `user_expressions` after the bootstrap cell: `{session_id, fresh, pid}`. */
export const BINDING_INFO_EXPRESSION = "__import__('recur_kernel').binding_info()";

/**
 * Python that binds the kernel to its session without leaving a name in the user's namespace.
 * Values travel as one JSON document inside a string literal: JSON's escapes are all valid in
 * a Python literal, so no value can break out of it.
 */
export function bootstrapCode(p: BootstrapParams): string {
  const lines: string[] = [];
  if (p.pythonPath) lines.push(pythonPathCode(p.pythonPath));
  const args = { url: p.hostUrl, session_id: p.sessionId, token: p.token, env: p.env ?? null };
  lines.push(`__import__('recur_kernel').bind(**__import__('json').loads(${JSON.stringify(JSON.stringify(args))}))`);
  return lines.join('\n');
}
