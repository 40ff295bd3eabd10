#!/usr/bin/env bash
# README command 1: `npm start` (or `bash scripts/up.sh`, also on a fresh clone before npm ci).
#
# Installs dependencies if needed, makes sure PostgreSQL/Redis/NATS run, builds, creates dev
# secrets in .local/, migrates, starts the four services (tools/dev-run.mjs), waits for /readyz,
# makes sure a demo account exists (.local/demo.env), prints how to call the API, then keeps the
# services in the foreground until Ctrl-C / SIGTERM.
#
# Options: --crm-core-replicas N   start N crm-core processes (HTTP ports 3002, 3012, ...)
# Env: PORT (3000), AUTH_PORT (3001), CRM_CORE_PORT (3002), WEBHOOK_DISPATCHER_PORT (3003),
#      DATABASE_URL, REDIS_URL, NATS_URL, OPERATOR_TOKEN, API_KEY_PEPPER, CALLER_SIGNING_KEY,
#      CALLER_VERIFY_KEYS, READY_TIMEOUT (120 s).
set -Eeuo pipefail

LOG_PREFIX=up
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT_DIR"

REPLICAS=1
while (($# > 0)); do
  case "$1" in
    --crm-core-replicas) REPLICAS="${2:-}"; shift 2 || shift ;;
    --crm-core-replicas=*) REPLICAS="${1#*=}"; shift ;;
    -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
    *) die "unknown argument: $1" "usage: npm start -- [--crm-core-replicas N]" ;;
  esac
done
[[ "$REPLICAS" =~ ^([1-9]|1[0-9]|20)$ ]] || die "--crm-core-replicas needs a number between 1 and 20 (got '$REPLICAS')"

export PORT="${PORT:-3000}"
export AUTH_PORT="${AUTH_PORT:-3001}"
export CRM_CORE_PORT="${CRM_CORE_PORT:-3002}"
export WEBHOOK_DISPATCHER_PORT="${WEBHOOK_DISPATCHER_PORT:-3003}"
export WEBHOOK_ALLOW_PRIVATE="${WEBHOOK_ALLOW_PRIVATE:-true}"
READY_TIMEOUT="${READY_TIMEOUT:-120}"
[[ "$READY_TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "READY_TIMEOUT must be a number of seconds (got '$READY_TIMEOUT')"
LOCAL_DIR="$ROOT_DIR/.local"
SECRETS_FILE="$LOCAL_DIR/secrets.env"
DEMO_FILE="$LOCAL_DIR/demo.env"
MIGRATE_APPS=(auth-server crm-core webhook-dispatcher)

DEV_PID=""
FOREGROUND=0

stop_services() {
  if [[ -n "$DEV_PID" ]] && kill -0 "$DEV_PID" 2>/dev/null; then
    log "stopping the services"
    kill -TERM "$DEV_PID" 2>/dev/null || true
    wait "$DEV_PID" 2>/dev/null || true
  fi
}

on_signal() {
  if ((FOREGROUND)); then
    # dev-run stops the services gracefully; the wait loop below collects its exit code.
    [[ -n "$DEV_PID" ]] && kill -TERM "$DEV_PID" 2>/dev/null || true
  else
    trap - ERR
    warn "interrupted during: ${CURRENT_STEP:-startup}"
    stop_services
    exit 130
  fi
}

WATCH_PID=""
cleanup() {
  if [[ -n "$WATCH_PID" ]]; then kill "$WATCH_PID" 2>/dev/null || true; fi
  stop_services
}

trap on_error_trap ERR
trap on_signal INT TERM HUP
trap cleanup EXIT

# `npm start` runs us under `sh -c`; a SIGTERM to npm reaches only that sh, which dies without
# passing it on. Watch our parent and stop gracefully when it goes away.
PARENT_PID=$PPID
(
  trap - INT TERM HUP EXIT ERR
  while kill -0 "$PARENT_PID" 2>/dev/null; do sleep 1; done
  kill -TERM $$ 2>/dev/null || true
) </dev/null >/dev/null 2>&1 &
WATCH_PID=$!

# port_env_for APP -> the env assignment that gives APP its own HTTP port (crm-core and the
# dispatcher both read HTTP_PORT).
port_env_for() {
  case "$1" in
    api-gateway) echo "PORT=$PORT" ;;
    auth-server) echo "AUTH_PORT=$AUTH_PORT" ;;
    crm-core) echo "HTTP_PORT=$CRM_CORE_PORT" ;;
    webhook-dispatcher) echo "HTTP_PORT=$WEBHOOK_DISPATCHER_PORT" ;;
  esac
}

random_secret() { # 48 URL-safe characters
  head -c 36 /dev/urandom | base64 | tr -d '\n' | tr '+/' '-_'
}

# read_kv FILE KEY -> value of KEY=value in FILE (our own simple format), empty if absent
read_kv() {
  [[ -f "$1" ]] || return 0
  local line
  line="$(grep -E "^$2=" "$1" | tail -n 1 || true)"
  line="${line#*=}"
  line="${line#\'}"
  printf '%s' "${line%\'}"
}

SECRET_KEYS=(OPERATOR_TOKEN API_KEY_PEPPER CALLER_SIGNING_KEY CALLER_VERIFY_KEYS)

# Node one-liners over the built messaging library (the parser the services use).
caller_keys_js() {
  "$PROJECT_NODE" -e "const s = require('./dist/libs/messaging/src/rpc-signature.js'); $1" "${@:2}"
}

# ensure_caller_keys: the Ed25519 pair that signs NATS requests (gateway, auth-server:
# CALLER_SIGNING_KEY) and lets every consumer check them (CALLER_VERIFY_KEYS), from the
# environment, else .local/secrets.env, else generated once. A signing key without its verify key
# gets the matching public key.
ensure_caller_keys() {
  local origin="environment"
  if [[ -z "${CALLER_SIGNING_KEY:-}" ]]; then
    CALLER_SIGNING_KEY="$(read_kv "$SECRETS_FILE" CALLER_SIGNING_KEY)"
    CALLER_VERIFY_KEYS="${CALLER_VERIFY_KEYS:-$(read_kv "$SECRETS_FILE" CALLER_VERIFY_KEYS)}"
    origin=".local/secrets.env"
  fi
  if [[ -z "$CALLER_SIGNING_KEY" ]]; then
    local pair
    pair="$(caller_keys_js 'const p = s.generateCallerKeyPair(); console.log(p.signingKey + " " + p.verifyKey)')" ||
      die "could not generate the NATS request signing keys" "check that npm run build produced dist/libs/messaging"
    CALLER_SIGNING_KEY="${pair% *}"
    CALLER_VERIFY_KEYS="${pair#* }"
    origin="generated, saved in .local/secrets.env"
    generated=1
    generated_keys+=(CALLER_SIGNING_KEY CALLER_VERIFY_KEYS)
  elif [[ -z "${CALLER_VERIFY_KEYS:-}" ]]; then
    CALLER_VERIFY_KEYS="$(caller_keys_js 'const c = require("node:crypto"); console.log(c.createPublicKey(s.parseSigningKey(process.argv[1])).export({ format: "jwk" }).x)' "$CALLER_SIGNING_KEY")" ||
      die "CALLER_SIGNING_KEY is not an Ed25519 private key (base64 of 32 bytes or a PKCS#8 PEM)" "unset it to use a generated one"
  fi
  export CALLER_SIGNING_KEY CALLER_VERIFY_KEYS
  log "  CALLER_SIGNING_KEY / CALLER_VERIFY_KEYS: $origin"
}

ensure_secrets() {
  mkdir -p "$LOCAL_DIR"
  local key value origin
  generated=0
  generated_keys=()
  for key in OPERATOR_TOKEN API_KEY_PEPPER; do
    origin="environment"
    value="${!key:-}"
    if [[ -z "$value" ]]; then
      value="$(read_kv "$SECRETS_FILE" "$key")"
      origin=".local/secrets.env"
    fi
    if [[ -z "$value" ]]; then
      value="$(random_secret)"
      origin="generated, saved in .local/secrets.env"
      generated=1
      generated_keys+=("$key")
    fi
    export "$key=$value"
    log "  $key: $origin"
  done
  ensure_caller_keys
  ((${#OPERATOR_TOKEN} >= 32)) || die "OPERATOR_TOKEN must be at least 32 characters (it has ${#OPERATOR_TOKEN})" "unset it to use a generated one, or set a longer value"
  ((${#API_KEY_PEPPER} >= 16)) || die "API_KEY_PEPPER must be at least 16 characters" "unset it to use a generated one, or set a longer value"
  if ((generated)); then
    # Keep what the file had for keys that came from the environment; add the generated ones.
    local tmp="$SECRETS_FILE.$$" k v
    (
      umask 077
      echo "# Development secrets, written by scripts/up.sh (npm start). Never use them in production." >"$tmp"
      for k in "${SECRET_KEYS[@]}"; do
        v="$(read_kv "$SECRETS_FILE" "$k")"
        [[ " ${generated_keys[*]} " == *" $k "* ]] && v="${!k}"
        [[ -z "$v" ]] || echo "$k=$v" >>"$tmp"
      done
    )
    mv "$tmp" "$SECRETS_FILE"
  fi
}

run_migrations() {
  local app
  for app in "${MIGRATE_APPS[@]}"; do
    local main="dist/apps/$app/src/main.js"
    [[ -f "$main" ]] || die "$main not found after the build" "check that apps/$app/src/main.ts exists and npm run build compiles it"
    log "  migrating $app"
    if ! env "$(port_env_for "$app")" "$PROJECT_NODE" "$main" migrate; then
      die "migration of $app failed (see its log lines above)" \
        "fix the cause (database reachable? migration error?) and run npm start again; '$PROJECT_NODE $main migrate' repeats only this step"
    fi
  done
}

# http_ports -> the HTTP ports of every service process, one per line
http_ports() {
  local i
  printf '%s\n' "$PORT" "$AUTH_PORT" "$WEBHOOK_DISPATCHER_PORT"
  for ((i = 0; i < REPLICAS; i++)); do echo $((CRM_CORE_PORT + 10 * i)); done
}

# all_ports -> the HTTP ports and the metrics ports (HTTP port + 6460, tools/dev-run.mjs), one per line
all_ports() {
  local p
  while read -r p; do printf '%s\n' "$p" $((p + 6460)); done < <(http_ports)
}

validate_ports() {
  local p seen=" "
  for p in "$PORT" "$AUTH_PORT" "$CRM_CORE_PORT" "$WEBHOOK_DISPATCHER_PORT"; do
    [[ "$p" =~ ^[1-9][0-9]{0,4}$ ]] && ((p <= 65535)) ||
      die "invalid port '$p'" "PORT, AUTH_PORT, CRM_CORE_PORT and WEBHOOK_DISPATCHER_PORT must be numbers between 1 and 65535"
  done
  while read -r p; do
    [[ "$seen" != *" $p "* ]] ||
      die "port $p is given to two services" "PORT, AUTH_PORT, CRM_CORE_PORT (+10 per replica) and WEBHOOK_DISPATCHER_PORT must differ"
    seen+="$p "
  done < <(all_ports)
}

check_ports_free() {
  local p
  while read -r p; do
    if tcp_open 127.0.0.1 "$p" 1; then
      die "port $p is already in use" "is another 'npm start' running? stop it, or choose other ports (PORT, AUTH_PORT, CRM_CORE_PORT, WEBHOOK_DISPATCHER_PORT)"
    fi
  done < <(all_ports)
}

wait_ready() {
  local -a names=(api-gateway auth-server) ports=("$PORT" "$AUTH_PORT")
  local i
  for ((i = 0; i < REPLICAS; i++)); do
    if ((REPLICAS > 1)); then names+=("crm-core-$((i + 1))"); else names+=(crm-core); fi
    ports+=($((CRM_CORE_PORT + 10 * i)))
  done
  names+=(webhook-dispatcher)
  ports+=("$WEBHOOK_DISPATCHER_PORT")
  local deadline=$((SECONDS + READY_TIMEOUT)) left rc
  for i in "${!names[@]}"; do
    left=$((deadline - SECONDS))
    ((left > 0)) || left=1
    rc=0
    wait_http "http://127.0.0.1:${ports[$i]}/readyz" "$left" "$DEV_PID" || rc=$?
    case "$rc" in
      0) log "  ${names[$i]} ready on :${ports[$i]}" ;;
      2) die "the services stopped during startup (see the dev-run lines above for which one exited)" \
        "fix the error in that service's log, then npm start again" ;;
      *) die "${names[$i]} is not ready after ${READY_TIMEOUT}s (GET http://127.0.0.1:${ports[$i]}/readyz answers $(http_status "http://127.0.0.1:${ports[$i]}/readyz"))" \
        "look at the ${names[$i]} log lines above; curl -s http://127.0.0.1:${ports[$i]}/readyz shows which check fails" ;;
    esac
  done
}

print_summary() {
  local CRM_USER_ID CRM_API_KEY
  CRM_USER_ID="$(read_kv "$DEMO_FILE" CRM_USER_ID)"
  CRM_API_KEY="$(read_kv "$DEMO_FILE" CRM_API_KEY)"
  local bar="================================================================================"
  cat <<EOF

$bar
 CRM is running (logs below; Ctrl-C stops everything)

   API (api-gateway):  http://localhost:${PORT}/api/v3
   Auth server:        http://localhost:${AUTH_PORT}
   Operator API:       http://localhost:${OPERATOR_PORT:-9470}/operator (internal port)
   Demo user id:       ${CRM_USER_ID}
   Demo API key:       ${CRM_API_KEY}
   Operator token:     ${OPERATOR_TOKEN}
   (saved in .local/demo.env)

 Try it:
source .local/demo.env && curl -s -u "\$CRM_USER_ID:\$CRM_API_KEY" "\$CRM_BASE_URL/users/\$CRM_USER_ID.json"
$bar

EOF
}

validate_ports
steps_total 8

step "Installing dependencies (if needed)" "fix the npm error above, then run npm start again"
ensure_node_modules

step "Checking PostgreSQL, Redis and NATS" "see the message above; DATABASE_URL, REDIS_URL and NATS_URL select the servers"
ensure_infra

step "Building (npm run build)" "fix the build error above (npm run build shows it again), then npm start"
npm run --silent build

step "Development secrets (.local/secrets.env)"
ensure_secrets

step "Running database migrations (${MIGRATE_APPS[*]})"
run_migrations

step "Starting the services (tools/dev-run.mjs)" "see the service log lines above"
check_ports_free
DEV_ARGS=()
((REPLICAS > 1)) && DEV_ARGS+=(--crm-core-replicas "$REPLICAS")
"$PROJECT_NODE" tools/dev-run.mjs "${DEV_ARGS[@]}" &
DEV_PID=$!

step "Waiting for all services to be ready (/readyz, up to ${READY_TIMEOUT}s)"
wait_ready

step "Demo account (.local/demo.env)" "see the messages above; deleting .local/demo.env makes npm start create a new demo account"
if ! DEMO_ENV_FILE="$DEMO_FILE" "$PROJECT_NODE" scripts/demo-account.mjs; then
  die "could not set up the demo account" "see the messages above; the services are stopped"
fi

print_summary
trap - ERR
FOREGROUND=1
rc=0
while true; do
  wait "$DEV_PID" && rc=0 || rc=$?
  kill -0 "$DEV_PID" 2>/dev/null || break
done
DEV_PID=""
if ((rc == 0)); then
  ok "stopped"
else
  err "the services stopped with exit code $rc (see the dev-run lines above)"
fi
exit "$rc"
