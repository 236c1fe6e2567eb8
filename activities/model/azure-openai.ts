import { openAIRequestBody } from './openai';
import { OpenAIStream } from './openai-stream';
import { streamingCall, type ProviderOptions } from './streaming-call';
import type { ModelProvider } from './types';

/** Streams usage (`stream_options`) and takes `max_completion_tokens`, which the GA 2024-10-21 lacks; AZURE_OPENAI_API_VERSION overrides it. */
export const AZURE_OPENAI_DEFAULT_API_VERSION = '2025-04-01-preview';

export interface AzureOpenAIProviderConfig extends ProviderOptions {
  /** The resource endpoint, e.g. `https://my-resource.openai.azure.com`. */
  endpoint: string;
  apiVersion: string;
  /** Exactly one of the two: a resource key, or a Microsoft Entra ID access token. */
  auth: { apiKey: string } | { adToken: string };
}

/**
 * Chat Completions on an Azure OpenAI deployment: the spec's model is the deployment name.
 * The wire is OpenAI's, plus content-filter results, which the fold ignores but for a
 * `content_filter` finish reason.
 */
export function createAzureOpenAIProvider(config: AzureOpenAIProviderConfig): ModelProvider {
  const base = `${config.endpoint.replace(/\/+$/, '')}/openai/deployments`;
  const version = `api-version=${encodeURIComponent(config.apiVersion)}`;
  const headers: Record<string, string> = 'apiKey' in config.auth ? { 'api-key': config.auth.apiKey } : { authorization: `Bearer ${config.auth.adToken}` };
  return {
    name: 'azure',
    complete: (request) =>
      streamingCall('azure', config, request, {
        url: `${base}/${encodeURIComponent(request.model)}/chat/completions?${version}`,
        headers,
        body: openAIRequestBody(request, 'max_completion_tokens'),
        newStream: (onText) => new OpenAIStream('azure', onText),
      }),
  };
}
