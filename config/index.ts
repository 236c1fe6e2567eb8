export * from './schema';
export { defaultConfig } from './defaults';
export { parseConfig, loadConfig, configToEnv, CONFIG_ENV_VARS } from './parse';
