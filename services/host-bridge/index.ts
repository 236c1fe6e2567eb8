export { startHostBridge, type HostBridge, type HostBridgeOptions, type BridgeHandler, type CallContext } from './host-bridge';
