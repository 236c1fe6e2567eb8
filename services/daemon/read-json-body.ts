import type { IncomingMessage } from 'node:http';
import { HttpError } from '../../errors';
import { badRequest } from './http-error';

/** The request body as text; 413 past `limit` bytes, after which the rest is discarded so the client can read the reply. */
function readText(req: IncomingMessage, limit: number): Promise<string> {
  if (Number(req.headers['content-length']) > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] | null = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (chunks && size <= limit) chunks.push(chunk);
      else if (chunks) {
        chunks = null; // keep reading, and dropping, to the end
        reject(tooLarge(limit));
      }
    });
    req.on('end', () => chunks && resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The request body parsed as JSON; undefined when empty; 400 when not JSON. */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const text = await readText(req, limit);
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`the request body is not JSON: ${(e as Error).message}`);
  }
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `request body over ${limit} bytes`, 'PayloadTooLargeError');
}
