export { createKernelClient, type KernelClient, type KernelClientOptions, type KernelBridge } from './kernel-client';
export type { ExecuteResult, CellError, MimeBundle, KernelSessionInfo } from './types';
export { sessionPath } from './jupyter-sessions';
