#!/usr/bin/env bash
# run.sh [N] [--problem small|large]: N seeds (default 1) from 0xC0FFEE, logged to logs/<uuid>.txt.
# RUN_TIMEOUT (default 10m) bounds the run; exit 124 means it was cancelled. SIM_SECONDS_PER_STEP
# makes each simulated step take that long, so a job lasts as a real training run would.
set -euo pipefail
cd "$(dirname "$0")"
exec timeout -k 5s "${RUN_TIMEOUT:-10m}" python3 train.py "$@"
