export * from './schema';
export { defaultConfig } from './defaults';
export { parseConfig, loadConfig, configToEnv, CONFIG_ENV_VARS } from './parse';
export { netAllows, parseNetPolicy, type NetPolicy } from './net-policy';
export { RANGES, describeRange, inRange, type NumericRange, type RangeName } from './ranges';
