import { execFile, execFileSync } from 'node:child_process';
import { userInfo } from 'node:os';

/**
 * Commands run as an ordinary user, as a hosted runner is: under root (CI), the unprivileged
 * account `RECUR_TEST_USER` (default `recur-ci`, which `npm test` creates); otherwise the
 * developer's own account. Each command gets a clean environment (what a login shell has, plus
 * `env`), so nothing of the test process's own environment leaks in, but for how this machine
 * reaches the registries (a proxy, its CA certificates), which any user of it is given too.
 */
export interface OrdinaryUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
  /** Runs `bash -c script` as the user in `cwd`; never rejects. */
  sh(script: string, opts: { cwd: string; env?: Record<string, string> }): Promise<{ code: number; out: string }>;
}

export function ordinaryUser(basePath: string): OrdinaryUser {
  const root = process.getuid?.() === 0;
  const name = root ? process.env.RECUR_TEST_USER ?? 'recur-ci' : userInfo().username;
  const [uid, gid] = root ? [id(name, '-u'), id(name, '-g')] : [userInfo().uid, userInfo().gid];
  const home = root ? execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).split(':')[5] : userInfo().homedir;
  const sh: OrdinaryUser['sh'] = (script, { cwd, env = {} }) => {
    const vars = { HOME: home, USER: name, LOGNAME: name, LANG: 'C.UTF-8', PATH: basePath, ...network(), ...env };
    const argv = ['env', '-i', ...Object.entries(vars).map(([k, v]) => `${k}=${v}`), 'bash', '-c', script];
    const [cmd, args] = root ? ['runuser', ['-u', name, '--', ...argv]] : [argv[0], argv.slice(1)];
    return new Promise((resolve) => {
      execFile(cmd, args, { cwd, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }));
    });
  };
  return { name, uid, gid, home, sh };
}

const NETWORK = /^(https?_proxy|no_proxy|all_proxy|node_extra_ca_certs|ssl_cert_(file|dir)|pip_cert|pip_index_url|pip_extra_index_url|requests_ca_bundle|curl_ca_bundle|npm_config_(registry|cafile|proxy|https_proxy))$/i;
const network = () => Object.fromEntries(Object.entries(process.env).filter(([k, v]) => NETWORK.test(k) && v !== undefined)) as Record<string, string>;

function id(name: string, flag: string): number {
  try {
    return Number(execFileSync('id', [flag, name], { encoding: 'utf8' }));
  } catch {
    throw new Error(`no user ${name}: the system tier runs Recur as an unprivileged user; npm test creates it (scripts/test-user.sh), or set RECUR_TEST_USER`);
  }
}
