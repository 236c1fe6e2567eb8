export { up, down, status, SERVICES, type ServiceStatus } from './stack';
export { ensureTools } from './install';
export { stackPaths, jupyterConnection, type JupyterConnection } from './paths';
export { kafkaBrokers, kafkaClient, kafkaConnection, temporalAddress, temporalConnection, embeddedKafka, embeddedTemporal } from './connections';
export { type KafkaRole } from './kafka-credentials';
export { ensureEventTopicAccess } from './kafka-acls';
export { repoRoot } from './repo-root';
export { ownerOnlySecret } from './secret-file';
export { ownerOnlyUmask } from './owner-only';
