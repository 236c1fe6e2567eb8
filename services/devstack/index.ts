export { up, down, restartDaemon, status, SERVICES } from './stack';
export { startService, stopService } from './service-run';
export type { ServiceStatus } from './service';
export { ensureChromium, ensureTools } from './install';
export { ensureSlurm } from './slurm';
export { ensureTimeSkippingServer, timeSkippingServer } from './time-skipping';
export { ensureEventTopicAccess } from './kafka-acls';
export { homeHosts, startHost, stopHost } from './hosts';
