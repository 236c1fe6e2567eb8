export { agentSessionWorkflow } from './agent-session';
