export { startHostBridge, type HostBridge, type HostBridgeOptions, type BridgeHandler, type CallContext } from './host-bridge';
export { BridgeError, toErrorReply } from './bridge-errors';
