import type { RecurConfig } from '../../config';
import { stackPaths } from '../../config/home-paths';
import { HttpError } from '../../errors';
import { credentialProblem } from '../../activities/model/credential-check';

/**
 * A 422 naming what to set when a model's key is unset or malformed, its login absent or its
 * local model not installed, checked in the daemon's environment: the one `recur up` started
 * the stack with, which the worker that calls the model inherits.
 */
export function refuseUnusableModels(specs: readonly string[], config: RecurConfig, env: NodeJS.ProcessEnv): void {
  const here = { env, loginsDir: stackPaths(config).logins, local: { installedDir: stackPaths(config).localModels, ...config.local } };
  for (const spec of specs) {
    const problem = credentialProblem(spec, here);
    if (problem) throw new HttpError(422, problem, 'ModelCredentialsError');
  }
}
