import { ProviderError } from '../../errors';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { toAnthropicTurns } from './anthropic';
import { BedrockStream } from './bedrock-stream';
import { EVENT_STREAM_FRAMING, type AwsEvent } from './event-stream';
import { splitSystem, withoutNativeToolCalls } from './messages';
import { PYTHON_TOOL } from './python-tool';
import { streamingCall, type ProviderOptions, type WireCall } from './streaming-call';
import type { ModelProvider, ModelRequest } from './types';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** An Amazon Bedrock API key is sent as a bearer token; IAM credentials sign each request with SigV4. */
export type BedrockAuth = { kind: 'apiKey'; apiKey: string } | { kind: 'sigv4'; credentials: AwsCredentials };

export interface BedrockProviderConfig extends ProviderOptions {
  region: string;
  /** Without a path; default `https://bedrock-runtime.<region>.amazonaws.com`. */
  baseUrl?: string;
  auth: BedrockAuth;
}

/** Used when the request sets no `maxTokens`: some models' own default is far smaller. */
export const BEDROCK_DEFAULT_MAX_TOKENS = 8192;

/** Model families whose Converse API takes cachePoint blocks; others reject the field. */
const CACHING_MODELS = /(?:^|[.:/])(?:anthropic\.claude|amazon\.nova)/;

const CACHE_POINT = { cachePoint: { type: 'default' } };

/** Converse, streamed (ConverseStream), against `bedrock/<modelId or inference profile>`. */
export function createBedrockProvider(config: BedrockProviderConfig): ModelProvider {
  const base = (config.baseUrl ?? `https://bedrock-runtime.${config.region}.amazonaws.com`).replace(/\/+$/, '');
  const signer = config.auth.kind === 'sigv4'
    ? new SignatureV4({ service: 'bedrock', region: config.region, credentials: config.auth.credentials, sha256: Sha256 })
    : null;
  const headers: Record<string, string> = config.auth.kind === 'apiKey' ? { authorization: `Bearer ${config.auth.apiKey}` } : {};
  return {
    name: 'bedrock',
    complete: (request) => {
      const wire: WireCall<AwsEvent> = {
        url: `${base}/model/${encodeURIComponent(request.model)}/converse-stream`,
        headers,
        body: bedrockRequestBody(request),
        framing: EVENT_STREAM_FRAMING,
        newStream: (onText) => new BedrockStream('bedrock', onText),
        ...(signer && { sign: (req) => signRequest(signer, req) }),
      };
      return streamingCall('bedrock', config, request, wire);
    },
  };
}

/** The headers to send: the given ones plus the SDK signer's x-amz-date, security token, payload hash and authorization. */
async function signRequest(signer: SignatureV4, req: { url: string; headers: Record<string, string>; body: string }): Promise<Record<string, string>> {
  const url = new URL(req.url);
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port && { port: Number(url.port) }),
    path: url.pathname,
    query: {},
    // fetch sends the same Host from the URL; the signature must cover it.
    headers: { ...req.headers, host: url.host },
    body: req.body,
  });
  const { host: _host, ...headers } = signed.headers;
  return headers;
}

export function bedrockRequestBody(request: ModelRequest): Record<string, unknown> {
  const history = request.tools === 'none' ? withoutNativeToolCalls(request.messages) : request.messages;
  const caching = request.cacheBreaks !== undefined && CACHING_MODELS.test(request.model);
  const system = splitSystem(request.system, request.cacheBreaks).flatMap((p) => (p.cached && caching ? [{ text: p.text }, CACHE_POINT] : [{ text: p.text }]));
  const messages = toConverseMessages(history);
  // The conversation so far is the next call's prefix: a breakpoint after it caches the turns too.
  if (caching && messages.length > 0) messages[messages.length - 1].content.push(CACHE_POINT);
  const { name, description, parameters } = PYTHON_TOOL;
  return {
    messages,
    ...(system.length > 0 && { system }),
    inferenceConfig: {
      maxTokens: request.maxTokens ?? BEDROCK_DEFAULT_MAX_TOKENS,
      ...(request.temperature !== undefined && { temperature: request.temperature }),
    },
    ...(request.tools === 'python' && { toolConfig: { tools: [{ toolSpec: { name, description, inputSchema: { json: parameters } } }] } }),
  };
}

/** Converse has the Messages API's turn rules (alternating roles, results before text), so the same turns in its block shapes. */
function toConverseMessages(history: ModelRequest['messages']): { role: string; content: object[] }[] {
  return toAnthropicTurns(history).map((turn) => ({
    role: turn.role,
    content: turn.content.map((b) => {
      if (b.type === 'text') return { text: b.text };
      if (b.type === 'tool_use') return { toolUse: { toolUseId: b.id, name: b.name, input: b.input } };
      return { toolResult: { toolUseId: b.tool_use_id, content: [{ text: b.content || '(no output)' }] } };
    }),
  }));
}

/**
 * Region and auth from the usual AWS variables: AWS_REGION (or AWS_DEFAULT_REGION), then an API
 * key in AWS_BEARER_TOKEN_BEDROCK (preferred, as the AWS SDK does) or AWS_ACCESS_KEY_ID +
 * AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN). Throws naming what is missing.
 */
export function bedrockSettings(env: Record<string, string | undefined>): Pick<BedrockProviderConfig, 'region' | 'auth' | 'baseUrl'> {
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION;
  if (!region) throw new ProviderError('bedrock', 'AWS_REGION (or AWS_DEFAULT_REGION) is not set', undefined, { retryable: false });
  const baseUrl = env.BEDROCK_BASE_URL || undefined;
  if (env.AWS_BEARER_TOKEN_BEDROCK) return { region, baseUrl, auth: { kind: 'apiKey', apiKey: env.AWS_BEARER_TOKEN_BEDROCK } };
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken } = env;
  if (!accessKeyId || !secretAccessKey) {
    throw new ProviderError('bedrock', 'neither AWS_BEARER_TOKEN_BEDROCK nor AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set', undefined, { retryable: false });
  }
  return { region, baseUrl, auth: { kind: 'sigv4', credentials: { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) } } };
}
