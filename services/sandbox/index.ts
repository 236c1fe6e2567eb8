export { createKernelHost, sandboxKey, sandboxRoot } from './kernel-host';
export { sandboxRecord } from './sandbox-record';
export { checkSandbox } from './check-sandbox';
export { createEgressProxy, parseTarget, type EgressProxy } from './egress-proxy';
