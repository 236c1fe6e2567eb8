#!/usr/bin/env bash
# `npm test`: installs what is missing, then runs every jest tier; the integration tier starts
# its own stack (tests/helpers/global-setup.ts). Extra arguments go to jest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
# --browser: Debian's Chromium for the viewer's browser tests (tests/helpers/browser.ts).
# --slurm: a one-node Slurm, started, for the Slurm executor's tests (tests/unit/slurm-executor.test.ts).
# --virtual-clock: Temporal's time-skipping server, for the virtual executor's (tests/integration/virtual-clock.test.ts).
node dist/services/cli/main.js setup --browser --slurm --virtual-clock
mkdir -p reports
exec npx jest --json --outputFile=reports/jest.json "$@"
