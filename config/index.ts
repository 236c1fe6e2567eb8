export * from './schema';
export { defaultConfig } from './defaults';
export { parseConfig, loadConfig, configToEnv, CONFIG_ENV_VARS } from './parse';
export { RANGES, describeRange, inRange, type NumericRange, type RangeName } from './ranges';
