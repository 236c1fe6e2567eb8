#!/usr/bin/env bash
# `npm test`: installs what is missing, then runs every jest tier; the integration tier starts
# its own stack (tests/helpers/global-setup.ts). Extra arguments go to one jest run instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
# --browser: Debian's Chromium for the viewer's browser tests (tests/helpers/browser.ts).
# --slurm: a one-node Slurm, started, for the Slurm executor's tests (tests/unit/slurm-executor.test.ts).
# --virtual-clock: Temporal's time-skipping server, for the virtual executor's (tests/integration/virtual-clock.test.ts).
node dist/services/cli/main.js setup --browser --slurm --virtual-clock
bash scripts/test-user.sh
mkdir -p reports
rm -f reports/jest*.json reports/unit.log reports/system.log
if [ $# -gt 0 ]; then exec npx jest --json --outputFile=reports/jest.json "$@"; fi
# The tiers share nothing (unit starts no stack, system a stack of its own on its own ports, and
# each runs one file at a time), so two lanes run at once: integration, and unit then system. The
# run takes about as long as the integration tier alone. The other lane's output waits in files,
# printed whole after the integration tier's, so neither interleaves with the other.
{
  lane=0
  npx jest --selectProjects unit --json --outputFile=reports/jest-unit.json >reports/unit.log 2>&1 || lane=$?
  npx jest --selectProjects system --json --outputFile=reports/jest-system.json >reports/system.log 2>&1 || lane=$?
  exit "$lane"
} &
other=$!
rc=0
# --forceExit: once the report is written. An activity of an in-process test worker can outlive
# its worker with its 3 s heartbeat timer, and that timer alone kept jest from exiting after every
# test had passed (the hang issue 50 tracks; the timer's owner is not yet found).
npx jest --selectProjects integration --json --outputFile=reports/jest-integration.json --forceExit || rc=$?
wait "$other" || rc=$?
cat reports/unit.log reports/system.log
exit "$rc"
