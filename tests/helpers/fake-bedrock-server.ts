import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Sha256 } from '@aws-crypto/sha256-js';
import { EventStreamCodec, type MessageHeaders } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentials } from '../../activities/model/bedrock';

/**
 * A fake Bedrock Runtime: answers each POST with the next queued reply, as AWS event-stream
 * frames encoded by the AWS SDK's own codec, and checks every request's auth as the service does:
 * a SigV4 signature is verified by re-signing the received request with the same signer and the
 * known credentials; a bearer token must equal the known API key. Either failing gets AWS's 403.
 */

/** One ConverseStream event (`event`) or modeled exception (`exception`) with its JSON payload. */
export type ConverseFixtureEvent = { event: string; payload: object } | { exception: string; payload: object };

export type BedrockReply =
  | { type: 'events'; events: ConverseFixtureEvent[]; chunkBytes?: number; cutAtByte?: number; corruptFrame?: number }
  | { type: 'json'; status: number; body: unknown; errorType?: string; headers?: Record<string, string> };

export interface BedrockRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  /** The auth check's verdict: `sigv4` or `bearer` when it passed. */
  auth: 'sigv4' | 'bearer' | 'rejected';
}

export interface FakeBedrockServer {
  url: string;
  requests: BedrockRequest[];
  enqueue(...replies: BedrockReply[]): void;
  close(): Promise<void>;
}

export const TEST_CREDENTIALS: AwsCredentials = {
  accessKeyId: 'AKIDEXAMPLETEST', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', sessionToken: 'session-token-test',
};
export const TEST_API_KEY = 'ABSKQmVkcm9ja0FQSUtleS10ZXN0';
export const TEST_REGION = 'us-east-1';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** A recorded ConverseStream from tests/fixtures/providers/bedrock. */
export function bedrockFixture(name: string): ConverseFixtureEvent[] {
  const file = join(__dirname, '..', 'fixtures', 'providers', 'bedrock', `${name}.json`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { events: ConverseFixtureEvent[] }).events;
}

export function encodeFrame(e: ConverseFixtureEvent): Uint8Array {
  const str = (value: string) => ({ type: 'string' as const, value });
  const headers: MessageHeaders = 'event' in e
    ? { ':message-type': str('event'), ':event-type': str(e.event), ':content-type': str('application/json') }
    : { ':message-type': str('exception'), ':exception-type': str(e.exception), ':content-type': str('application/json') };
  return codec.encode({ headers, body: fromUtf8(JSON.stringify(e.payload)) });
}

async function checkAuth(headers: IncomingHttpHeaders, path: string, port: number, raw: string): Promise<BedrockRequest['auth']> {
  const auth = headers.authorization ?? '';
  if (auth.startsWith('Bearer ')) return auth === `Bearer ${TEST_API_KEY}` ? 'bearer' : 'rejected';
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(auth)?.[1].split(';') ?? [];
  const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(String(headers['x-amz-date']));
  if (!auth.startsWith('AWS4-HMAC-SHA256 ') || !date) return 'rejected';
  const signer = new SignatureV4({ service: 'bedrock', region: TEST_REGION, credentials: TEST_CREDENTIALS, sha256: Sha256 });
  const signingDate = new Date(Date.UTC(+date[1], +date[2] - 1, +date[3], +date[4], +date[5], +date[6]));
  const resigned = await signer.sign({
    method: 'POST', protocol: 'http:', hostname: '127.0.0.1', port, path, query: {},
    headers: Object.fromEntries(signedHeaders.map((h) => [h, String(headers[h])])), body: raw,
  }, { signingDate });
  return resigned.headers.authorization === auth ? 'sigv4' : 'rejected';
}

export async function startFakeBedrockServer(): Promise<FakeBedrockServer> {
  const queue: BedrockReply[] = [];
  const requests: BedrockRequest[] = [];
  const server = createServer((req, res) => {
    const pieces: Buffer[] = [];
    req.on('data', (piece: Buffer) => pieces.push(piece));
    req.on('end', async () => {
      const raw = Buffer.concat(pieces).toString('utf8');
      const auth = await checkAuth(req.headers, req.url ?? '', port, raw);
      requests.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(raw), auth });
      const reply: BedrockReply = auth === 'rejected'
        ? { type: 'json', status: 403, errorType: 'InvalidSignatureException', body: { message: 'The request signature we calculated does not match the signature you provided.' } }
        : queue.shift() ?? { type: 'json', status: 418, body: { message: `no reply queued for request ${requests.length}` } };
      if (reply.type === 'json') {
        const errorType = reply.errorType && { 'x-amzn-errortype': `${reply.errorType}:http://internal.amazon.com/coral/com.amazon.bedrock/` };
        res.writeHead(reply.status, { 'content-type': 'application/json', ...errorType, ...reply.headers });
        res.end(JSON.stringify(reply.body));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      const frames = reply.events.map(encodeFrame);
      if (reply.corruptFrame !== undefined) frames[reply.corruptFrame][frames[reply.corruptFrame].length - 1] ^= 0xff;
      const bytes = Buffer.concat(frames).subarray(0, reply.cutAtByte);
      const size = reply.chunkBytes ?? bytes.length;
      for (let at = 0; at < bytes.length; at += size) {
        res.write(bytes.subarray(at, at + size));
        // A turn of the event loop between pieces, so they leave as separate reads on the client.
        if (reply.chunkBytes !== undefined) await new Promise((next) => setImmediate(next));
      }
      res.end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
