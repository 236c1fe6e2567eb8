export { up, down, status, SERVICES, type ServiceStatus } from './stack';
export { ensureTools } from './install';
export { stackPaths, jupyterConnection, kafkaBrokers, kafkaClient, temporalAddress, type JupyterConnection } from './paths';
export { repoRoot } from './repo-root';
export { ownerOnlySecret } from './secret-file';
export { ownerOnlyUmask } from './owner-only';
export { ensureLogKey, homeKeyring, homeSigner, logKeyPaths, readPublicKeyFile, rotateLogKey } from './log-keys';
