export { createKernelHost, sandboxKey, sandboxRoot, sessionWorkspaces } from './kernel-host';
export { sandboxRecord } from './sandbox-record';
export { checkSandbox } from './check-sandbox';
export { createEgressProxy, parseTarget, type EgressProxy } from './egress-proxy';
export { createWorkspaces, type Workspaces } from './workspace-binding';
