export { up, down, restartDaemon, startService, status, stopService, SERVICES, type ServiceStatus } from './stack';
export { ensureChromium, ensureTools } from './install';
export { ensureEventTopicAccess } from './kafka-acls';
