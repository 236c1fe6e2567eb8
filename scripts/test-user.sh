#!/usr/bin/env bash
# The system tier (tests/system) runs Recur as an unprivileged user, as a hosted runner does.
# Under root (CI), this makes that user; anyone else is already one, and the tier runs as them.
set -euo pipefail
[ "$(id -u)" = 0 ] || exit 0
user=${RECUR_TEST_USER:-recur-ci}
id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
