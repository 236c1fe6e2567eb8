#!/usr/bin/env bash
# Brings a checkout to a runnable state: node modules exactly as locked, TypeScript compiled.
# The Python venv, Temporal CLI and Kafka jars are installed by `recur setup`/`recur up` itself.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cmp -s package-lock.json node_modules/.recur-installed-lock 2>/dev/null; then
  echo "bootstrap: installing node modules (npm ci)…" >&2
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.recur-installed-lock
else
  npm run -s build
fi
