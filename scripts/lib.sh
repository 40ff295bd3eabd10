# shellcheck shell=bash
# Shared start of scripts/up.sh and scripts/test.sh. Source it, do not run it.
#
#   LOG_PREFIX=up; source scripts/lib.sh; steps_total 8
#   step "Installing"        -> [up] [1/8] Installing
#   ensure_node_modules      -> npm ci, quietly, when node_modules does not match package-lock.json
#
# Only bash, coreutils and the system npm (and the node it runs on, whatever its version) are
# assumed here. Everything after the install runs on the project's own Node 22
# (node_modules/.bin/node): tools/up.mjs, tools/infra.mjs.

ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROJECT_NODE="$ROOT_DIR/node_modules/.bin/node"
LOG_PREFIX="${LOG_PREFIX:-up}"
_STEP_NO=0
_STEP_TOTAL=0
CURRENT_STEP=""
NEXT_HINT=""

if [[ -t 2 && -z "${NO_COLOR:-}" ]]; then
  _C_BOLD=$'\033[1m' _C_RED=$'\033[31m' _C_GRN=$'\033[32m' _C_OFF=$'\033[0m'
else
  _C_BOLD="" _C_RED="" _C_GRN="" _C_OFF=""
fi

# Messages go to stderr, so the stdout of the tools we call stays untouched.
log() { printf '%s[%s]%s %s\n' "$_C_BOLD" "$LOG_PREFIX" "$_C_OFF" "$*" >&2; }
ok() { log "${_C_GRN}$*${_C_OFF}"; }
err() { log "${_C_RED}ERROR:${_C_OFF} $*"; }

# die MESSAGE [NEXT-STEP-HINT...]: prints what failed and what to do next, exits 1.
die() {
  err "$1"
  shift
  local line
  for line in "$@"; do log "  -> $line"; done
  exit 1
}

steps_total() { _STEP_TOTAL="$1"; _STEP_NO=0; }

# step TITLE [HINT]: announces the next step; HINT is printed if the step fails (on_error_trap).
step() {
  _STEP_NO=$((_STEP_NO + 1))
  CURRENT_STEP="$1"
  NEXT_HINT="${2:-}"
  log "${_C_BOLD}[${_STEP_NO}/${_STEP_TOTAL}]${_C_OFF} $1"
}

# Install with: trap on_error_trap ERR (and set -E) to report a failing command with its step.
on_error_trap() {
  local rc=$?
  err "step '${CURRENT_STEP:-startup}' failed (exit code $rc, command: ${BASH_COMMAND})"
  if [[ -n "$NEXT_HINT" ]]; then log "  -> $NEXT_HINT"; fi
  exit "$rc"
}

# npm_logged ARGS...: runs npm with its output in $NPM_LOG only.
NPM_LOG="$ROOT_DIR/.local/npm-install.log"
npm_logged() {
  printf '\n$ npm %s\n' "$*" >>"$NPM_LOG"
  (cd "$ROOT_DIR" && npm "$@" --no-audit --no-fund) >>"$NPM_LOG" 2>&1
}

# install_failed: the end of npm's output (without the engine warnings, see ensure_node_modules), and where the rest is.
install_failed() {
  err "$1"
  grep -v 'EBADENGINE' "$NPM_LOG" | tail -n 25 | sed 's/^/    /' >&2
  die "the whole output is in ${NPM_LOG#"$ROOT_DIR"/}" \
    "check access to the npm registry, then run again; if it persists: rm -rf node_modules && npm ci"
}

# ensure_node_modules: installs the dependencies when node_modules does not match package-lock.json
# (tools/deps-check.cjs compares versions, not file times). npm's output goes to
# .local/npm-install.log; one line says what happens, and only a failure shows npm's words. That
# log also keeps the EBADENGINE warnings npm prints on a system Node older than 22: the packages
# run on the project's own Node 22 (the `node` package), never on the one npm runs on.
ensure_node_modules() {
  local reason=""
  if [[ ! -d "$ROOT_DIR/node_modules" ]]; then
    reason="node_modules is missing"
  elif [[ ! -x "$PROJECT_NODE" ]]; then
    reason="the project's Node (node_modules/.bin/node) is missing"
  elif ! reason="$("$PROJECT_NODE" "$ROOT_DIR/tools/deps-check.cjs")"; then
    reason="${reason:-node_modules could not be checked against package-lock.json}"
  fi
  if [[ -z "$reason" ]]; then
    log "dependencies are up to date (node_modules)"
  else
    command -v npm >/dev/null 2>&1 ||
      die "npm is not installed" "install Node.js and npm (any Node >= 20 with npm works; the project brings its own Node 22), then run again"
    mkdir -p "$ROOT_DIR/.local"
    : >"$NPM_LOG"
    log "installing dependencies with npm ci ($reason; about a minute, output in ${NPM_LOG#"$ROOT_DIR"/})"
    if ! npm_logged ci; then
      # A registry that mirrors only some platforms' optional binaries makes npm ci call the lock
      # file out of sync; npm install --no-save installs the same versions without rewriting it.
      grep -q 'can only install packages when your package.json and package-lock.json' "$NPM_LOG" ||
        install_failed "npm ci failed"
      log "npm ci could not use the lock file; falling back to npm install (same versions)"
      npm_logged install --no-save || install_failed "npm install failed"
    fi
    local warnings
    warnings="$(grep '^npm warn' "$NPM_LOG" | grep -vc 'EBADENGINE' || true)"
    ok "dependencies installed ($(grep -Eo '(added|changed|removed) [0-9]+ packages?' "$NPM_LOG" | tail -n 1 || true))"
    if ((warnings > 0)); then log "npm printed $warnings warning lines other than engine ones: see ${NPM_LOG#"$ROOT_DIR"/}"; fi
  fi
  [[ -x "$PROJECT_NODE" ]] || die "node_modules/.bin/node is missing after the install" "rm -rf node_modules && npm ci"
  local version
  version="$("$PROJECT_NODE" -p 'process.versions.node' 2>/dev/null)" || die "node_modules/.bin/node does not run" "rm -rf node_modules && npm ci"
  ((${version%%.*} >= 22)) || die "node_modules/.bin/node is Node $version, expected 22" "rm -rf node_modules && npm ci"
}
