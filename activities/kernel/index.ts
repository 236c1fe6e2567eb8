export { createKernelClient, type KernelClient, type KernelClientOptions } from './kernel-client';
export type { ExecuteResult, CellError, MimeBundle, KernelSessionInfo, KernelHost, KernelPlace } from './types';
export { sessionPath } from './jupyter-sessions';
