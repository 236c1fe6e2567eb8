export * from './schema';
export { defaultConfig } from './defaults';
export { parseConfig, loadConfig, CONFIG_ENV_VARS } from './parse';
