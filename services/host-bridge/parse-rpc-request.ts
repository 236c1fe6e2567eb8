import { HttpError } from '../../errors';

/** One kernel → host call: `POST /rpc {"op", "args", "session"?, "rid"?}`. */
export interface RpcRequest {
  op: string;
  args: Record<string, unknown>;
  /** The session the kernel believes it is; must match the token's when present. */
  session?: string;
  /** Random per call, for handlers that want to drop a duplicate. */
  rid?: string;
}

const badRequest = (message: string) => new HttpError(400, message, 'BadRequestError');

export function parseRpcRequest(text: string): RpcRequest {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badRequest('body is not valid JSON');
  }
  if (!isObject(body)) throw badRequest('body must be a JSON object');
  const { op, args = {}, session, rid } = body;
  if (typeof op !== 'string' || op === '') throw badRequest('"op" must be a non-empty string');
  if (!isObject(args)) throw badRequest('"args" must be an object');
  if (session !== undefined && typeof session !== 'string') throw badRequest('"session" must be a string');
  if (rid !== undefined && typeof rid !== 'string') throw badRequest('"rid" must be a string');
  return { op, args, session, rid };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
