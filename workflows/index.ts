export { agentSessionWorkflow } from './agent-session';
export { harnessWorkflow } from './harness/harness-workflow';
export { hostRegistryWorkflow } from './hosts/host-registry';
export { jobWorkflow } from './jobs/job-workflow';
