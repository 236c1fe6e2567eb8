/*
 * The CI's own variables are the CI's, not a test's: the suite runs the same under `CI=true`, and
 * a test that wants CI mode asks for it (`--ci`, or CI / GITHUB_* in the env it passes).
 */
for (const name of ['CI', 'GITHUB_STEP_SUMMARY', 'GITHUB_OUTPUT']) delete process.env[name];
