export { up, down, restartDaemon, status, SERVICES, type ServiceStatus } from './stack';
export { ensureChromium, ensureTools } from './install';
export { ensureEventTopicAccess } from './kafka-acls';
