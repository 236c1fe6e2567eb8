import type { IncomingMessage } from 'node:http';
import { HttpError } from '../../errors';

/** The request body as text; 413 once it passes `limit` bytes (checked before reading when declared). */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge(limit));
      } else {
        chunks.push(chunk);
      }
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `request body over ${limit} bytes`, 'PayloadTooLargeError');
}
