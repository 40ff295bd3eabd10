#!/usr/bin/env bash
# README command 1: `npm start` (and `npm run dev`, which adds --watch); also `bash scripts/up.sh` on a
# fresh clone. Installs the dependencies if node_modules does not match package-lock.json (quietly:
# npm's output goes to .local/npm-install.log), then hands over to tools/up.mjs on the project's own
# Node 22, which brings up PostgreSQL/Redis/NATS, builds, migrates, starts the four services and
# prints where the API and its reference are.
#
# Options: --crm-core-replicas N   start N crm-core processes (HTTP ports 3002, 3012, ...)
#          --watch                 recompile changed files and restart the services they affect
# Env: see tools/up.mjs (PORT, AUTH_PORT, ..., DATABASE_URL, REDIS_URL, NATS_URL, READY_TIMEOUT, LOG_FORMAT).
# NODE_ENV=production: generates no secret; stops at once, naming every variable of
# tools/production-env.cjs (README "Production") that is missing or invalid.
set -Eeuo pipefail

LOG_PREFIX=up
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT_DIR"
trap on_error_trap ERR

case "${1:-}" in -h | --help) sed -n '2,10p' "$0"; exit 0 ;; esac

# Production: check the variables before anything is installed (on whatever node runs npm).
if [[ "${NODE_ENV:-}" == production ]]; then
  node tools/production-env.cjs || exit 1
fi

steps_total 8
step "Installing dependencies (if needed)" "fix the npm error above, then run npm start again"
ensure_node_modules

# The remaining steps (2 to 8) are tools/up.mjs's.
UP_STEPS_DONE=1 exec "$PROJECT_NODE" tools/up.mjs "$@"
