import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jupyterConnection, stackPaths } from '../../config/home-paths';
import { repoRoot } from '../home/repo-root';
import { ownerOnlySecret } from '../home/secret-file';
import { baseEnv, type ServiceDef } from './service';
import { sandboxRoot } from '../sandbox/kernel-host';

/**
 * Jupyter Server for agent kernels, each started in its session's sandbox (docs/sandbox.md).
 * Kernels inherit its environment, so it gets a scrubbed one: no provider keys, no user
 * IPython/Jupyter config. The token lives in a 0600 config file rather than argv or the
 * environment.
 */
export const jupyterService: ServiceDef = {
  name: 'jupyter',
  startTimeoutSeconds: 60,
  ports: (c) => [{ setting: 'RECUR_JUPYTER_PORT', port: c.ports.jupyter }],
  url: (c) => `http://${c.host}:${c.ports.jupyter}/`,
  prepare(config) {
    const p = stackPaths(config);
    const dirs = {
      config: join(p.jupyterRoot, 'config'),
      data: join(p.jupyterRoot, 'data'),
      ipython: join(p.jupyterRoot, 'ipython'),
      work: join(p.jupyterRoot, 'work'),
      runtime: join(p.hostRun, 'jupyter-runtime'),
    };
    for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
    // IPython copies its startup README into a startup dir it creates, keeping the package's 0644
    // (shutil.copy); one that exists already is left alone, so the home stays owner-only.
    mkdirSync(join(dirs.ipython, 'profile_default', 'startup'), { recursive: true });
    // Kept across restarts: a worker holding it keeps working when the server is restarted under it.
    const token = ownerOnlySecret(p.jupyterToken, 24);
    const serverConfig = {
      ServerApp: {
        ip: config.host,
        port: config.ports.jupyter,
        port_retries: 0,
        open_browser: false,
        allow_root: true,
        terminals_enabled: false,
        root_dir: dirs.work,
        jpserver_extensions: { recur_jupyter: true },
      },
      IdentityProvider: { token },
      MultiKernelManager: { kernel_manager_class: 'recur_jupyter.sandbox.SandboxedKernelManager' },
      SandboxedKernelManager: { sandbox_root: sandboxRoot(config), sandbox: config.sandbox.mode === 'on' },
    };
    writeFileSync(join(dirs.config, 'jupyter_server_config.json'), JSON.stringify(serverConfig, null, 2), { mode: 0o600 });
    return {
      cmd: join(p.venv, 'bin', 'jupyter-server'),
      args: [`--config=${join(dirs.config, 'jupyter_server_config.json')}`],
      env: baseEnv({
        PYTHONPATH: join(repoRoot(), 'kernel'),
        JUPYTER_CONFIG_DIR: dirs.config,
        JUPYTER_DATA_DIR: dirs.data,
        JUPYTER_RUNTIME_DIR: dirs.runtime,
        IPYTHONDIR: dirs.ipython,
        JUPYTER_PLATFORM_DIRS: '1',
        PYDEVD_DISABLE_FILE_VALIDATION: '1',
      }),
      marker: dirs.config,
    };
  },
  async healthy(config) {
    if (!existsSync(stackPaths(config).jupyterToken)) return false;
    const { baseUrl, token } = jupyterConnection(config);
    try {
      const res = await fetch(`${baseUrl}api/status`, {
        headers: { Authorization: `token ${token}` },
        signal: AbortSignal.timeout(1000),
      });
      return res.ok;
    } catch {
      return false;
    }
  },
};

