#!/usr/bin/env bash
# README command 2: `npm test` (or `bash scripts/test.sh`). Extra arguments go to jest:
#   npm test -- --selectProjects unit        npm test -- apps/crm-core
# Installs dependencies if needed, makes sure PostgreSQL/Redis/NATS run and Chromium is there
# (tools/infra.mjs), then runs all jest projects (unit, medium, integration, e2e, topology; the e2e
# and topology global setups build dist/ themselves; topology starts its own private servers on
# spare ports). With CI=true jest runs with --ci. Exits with jest's exit code.
set -Eeuo pipefail

LOG_PREFIX=test
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT_DIR"
trap on_error_trap ERR

steps_total 4

step "Installing dependencies (if needed)" "fix the npm error above, then run npm test again"
ensure_node_modules

step "Checking PostgreSQL, Redis and NATS" "see the message above; DATABASE_URL, REDIS_URL and NATS_URL select the servers"
LOG_PREFIX=test "$PROJECT_NODE" tools/infra.mjs infra

step "Checking Chromium for the browser tests and python3-requests for OnePageCRM's python client" "install Debian's chromium and python3-requests packages (or set CHROMIUM_PATH, ONEPAGECRM_PYTHON)"
LOG_PREFIX=test "$PROJECT_NODE" tools/infra.mjs chromium python

JEST_ARGS=()
if [[ "${CI:-}" == "true" || "${CI:-}" == "1" ]]; then JEST_ARGS+=(--ci); fi
JEST_ARGS+=("$@")

step "Running jest (unit, medium, integration, e2e, topology)${JEST_ARGS[*]:+: jest ${JEST_ARGS[*]}}"
trap - ERR
rc=0
npx --no -- jest "${JEST_ARGS[@]}" || rc=$?
if ((rc == 0)); then ok "jest passed"; else err "jest failed (exit code $rc)"; fi
exit "$rc"
