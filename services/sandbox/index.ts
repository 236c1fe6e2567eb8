export { createKernelHost, sandboxKey, sandboxRoot } from './kernel-host';
export { sandboxRecord, type SandboxRecord } from './sandbox-record';
export { checkSandbox } from './check-sandbox';
