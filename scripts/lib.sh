# shellcheck shell=bash
# Shared helpers for scripts/up.sh and scripts/test.sh. Source it, do not run it.
#
#   LOG_PREFIX=up; source scripts/lib.sh; steps_total 9
#   step "Building"           -> [up] [1/9] Building
#   ensure_node_modules       -> npm ci when node_modules is missing or older than package-lock.json
#   ensure_infra              -> PostgreSQL, Redis, NATS (JetStream) reachable, started locally if needed
#   wait_http URL SECONDS     -> waits for a 2xx answer
#
# Only bash, coreutils and the system npm are assumed before node_modules exists; project code
# runs on the project's own Node 22 (node_modules/.bin/node), never the system node.

ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROJECT_NODE="$ROOT_DIR/node_modules/.bin/node"
LOG_PREFIX="${LOG_PREFIX:-up}"
_STEP_NO=0
_STEP_TOTAL=0
CURRENT_STEP=""
NEXT_HINT=""

if [[ -t 2 && -z "${NO_COLOR:-}" ]]; then
  _C_BOLD=$'\033[1m' _C_RED=$'\033[31m' _C_YEL=$'\033[33m' _C_GRN=$'\033[32m' _C_OFF=$'\033[0m'
else
  _C_BOLD="" _C_RED="" _C_YEL="" _C_GRN="" _C_OFF=""
fi

# ---------------------------------------------------------------------------------------------
# Logging (stderr, so stdout of the tools we call stays untouched)
# ---------------------------------------------------------------------------------------------
log() { printf '%s[%s]%s %s\n' "$_C_BOLD" "$LOG_PREFIX" "$_C_OFF" "$*" >&2; }
ok() { printf '%s[%s]%s %s%s%s\n' "$_C_BOLD" "$LOG_PREFIX" "$_C_OFF" "$_C_GRN" "$*" "$_C_OFF" >&2; }
warn() { printf '%s[%s]%s %sWARNING:%s %s\n' "$_C_BOLD" "$LOG_PREFIX" "$_C_OFF" "$_C_YEL" "$_C_OFF" "$*" >&2; }
err() { printf '%s[%s]%s %sERROR:%s %s\n' "$_C_BOLD" "$LOG_PREFIX" "$_C_OFF" "$_C_RED" "$_C_OFF" "$*" >&2; }

# die MESSAGE [NEXT-STEP-HINT...]: prints what failed and what to do next, exits 1.
die() {
  err "$1"
  shift
  local line
  for line in "$@"; do printf '%s[%s]%s   -> %s\n' "$_C_BOLD" "$LOG_PREFIX" "$_C_OFF" "$line" >&2; done
  exit 1
}

steps_total() { _STEP_TOTAL="$1"; _STEP_NO=0; }

# step TITLE [HINT]: announces the next step; HINT is printed if the step fails (see on_error_trap).
step() {
  _STEP_NO=$((_STEP_NO + 1))
  CURRENT_STEP="$1"
  NEXT_HINT="${2:-}"
  if ((_STEP_TOTAL > 0)); then
    log "${_C_BOLD}[${_STEP_NO}/${_STEP_TOTAL}]${_C_OFF} $1"
  else
    log "${_C_BOLD}==>${_C_OFF} $1"
  fi
}

# Install with: trap on_error_trap ERR (and set -E) to report a failing command with its step.
on_error_trap() {
  local rc=$?
  err "step '${CURRENT_STEP:-startup}' failed (exit code $rc, command: ${BASH_COMMAND})"
  if [[ -n "$NEXT_HINT" ]]; then printf '%s[%s]%s   -> %s\n' "$_C_BOLD" "$LOG_PREFIX" "$_C_OFF" "$NEXT_HINT" >&2; fi
  exit "$rc"
}

have() { command -v "$1" >/dev/null 2>&1; }

project_node() { (cd "$ROOT_DIR" && "$PROJECT_NODE" "$@"); }

# ---------------------------------------------------------------------------------------------
# Dependencies
# ---------------------------------------------------------------------------------------------
ensure_node_modules() {
  local reason=""
  if [[ ! -d "$ROOT_DIR/node_modules" ]]; then
    reason="node_modules is missing"
  elif [[ ! -f "$ROOT_DIR/node_modules/.package-lock.json" ]]; then
    reason="node_modules looks incomplete (no node_modules/.package-lock.json)"
  elif [[ "$ROOT_DIR/package-lock.json" -nt "$ROOT_DIR/node_modules/.package-lock.json" ]]; then
    reason="package-lock.json is newer than node_modules"
  elif [[ ! -x "$PROJECT_NODE" ]]; then
    reason="the project's Node (node_modules/.bin/node) is missing"
  fi
  if [[ -n "$reason" ]]; then
    have npm || die "npm is not installed" "install Node.js and npm (any Node >= 18 with npm works; the project brings its own Node 22), then re-run"
    log "installing dependencies with npm ci ($reason)"
    if ! (cd "$ROOT_DIR" && npm ci --no-audit --no-fund); then
      # Registries that mirror only some platforms' optional binaries (e.g. no @swc/core-darwin-*)
      # produce lock files npm ci calls "out of sync". npm install --no-save installs from the same
      # lock file without rewriting it.
      warn "npm ci failed; retrying with npm install --no-save (same package-lock.json, not rewritten)"
      if ! (cd "$ROOT_DIR" && npm install --no-save --no-audit --no-fund); then
        die "npm install failed" \
          "check access to the npm registry and the messages above, then re-run" \
          "if it persists: rm -rf node_modules && npm install"
      fi
    fi
  else
    log "dependencies are up to date (node_modules)"
  fi
  [[ -x "$PROJECT_NODE" ]] || die "node_modules/.bin/node is missing after install" "rm -rf node_modules && npm ci"
  local version
  version="$("$PROJECT_NODE" -p 'process.versions.node' 2>/dev/null)" || die "node_modules/.bin/node does not run" "rm -rf node_modules && npm ci"
  if ((${version%%.*} < 22)); then
    die "node_modules/.bin/node is Node $version, expected 22" "rm -rf node_modules && npm ci"
  fi
}

# ---------------------------------------------------------------------------------------------
# URL helpers (scheme://[user[:pass]@]host[:port][/path][?query]; first URL of a comma list)
# ---------------------------------------------------------------------------------------------
url_host() {
  local rest="${1%%,*}"
  rest="${rest#*://}"
  rest="${rest%%/*}"
  rest="${rest%%\?*}"
  rest="${rest##*@}"
  if [[ "$rest" == \[* ]]; then
    rest="${rest#[}"
    printf '%s\n' "${rest%%]*}"
  else
    printf '%s\n' "${rest%%:*}"
  fi
}

url_port() {
  local rest="${1%%,*}" default="$2"
  rest="${rest#*://}"
  rest="${rest%%/*}"
  rest="${rest%%\?*}"
  rest="${rest##*@}"
  if [[ "$rest" == \[* ]]; then rest="${rest#*]}"; else rest="${rest#"${rest%%:*}"}"; fi
  rest="${rest#:}"
  printf '%s\n' "${rest:-$default}"
}

# The same URL pointing at database "postgres" (the target database may not exist before migrate).
pg_admin_url() {
  local url="$1" scheme rest authority query=""
  scheme="${url%%://*}"
  rest="${url#*://}"
  authority="${rest%%/*}"
  authority="${authority%%\?*}"
  if [[ "$url" == *\?* ]]; then query="?${url#*\?}"; fi
  printf '%s://%s/postgres%s\n' "$scheme" "$authority" "$query"
}

is_local_host() {
  case "$1" in
    localhost | 127.* | ::1 | 0:0:0:0:0:0:0:1) return 0 ;;
    *) return 1 ;;
  esac
}

# tcp_open HOST PORT [SECONDS]
tcp_open() {
  timeout "${3:-2}" bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null
}

# wait_tcp HOST PORT SECONDS
wait_tcp() {
  local deadline=$((SECONDS + $3))
  until tcp_open "$1" "$2"; do
    ((SECONDS < deadline)) || return 1
    sleep 1
  done
}

# ---------------------------------------------------------------------------------------------
# Service-level checks
# ---------------------------------------------------------------------------------------------
pg_query_ok() {
  local url
  url="$(pg_admin_url "$1")"
  if have psql; then
    PGCONNECT_TIMEOUT=3 psql -w -X -Atq -d "$url" -c 'select 1' >/dev/null
  elif [[ -x "$PROJECT_NODE" ]]; then
    project_node -e '
      const { Client } = require("pg");
      const c = new Client({ connectionString: process.argv[1], connectionTimeoutMillis: 3000 });
      c.connect().then(() => c.query("select 1")).then(() => c.end())
        .then(() => process.exit(0), (e) => { console.error(e.message); process.exit(1); });
    ' "$url" >/dev/null
  else
    return 0 # nothing to query with yet; the TCP check has to do
  fi
}

redis_ping_ok() {
  local host="$1" port="$2"
  timeout 3 bash -c '
    exec 3<>"/dev/tcp/$1/$2" || exit 1
    printf "PING\r\n" >&3
    IFS= read -r -t 2 line <&3 || exit 1
    case "$line" in +PONG* | -NOAUTH* | -WRONGPASS*) exit 0 ;; *) exit 1 ;; esac
  ' _ "$host" "$port" 2>/dev/null
}

# Errors go to stderr. Exit codes: 0 JetStream enabled, 1 cannot connect, 2 connected but no JetStream.
nats_jetstream_check() {
  project_node -e '
    const { connect } = require("@nats-io/transport-node");
    const { jetstreamManager } = require("@nats-io/jetstream");
    (async () => {
      let nc;
      try {
        nc = await connect({ servers: process.argv[1].split(","), timeout: 3000, reconnect: false });
      } catch (e) { console.error(e.message); process.exit(1); }
      try {
        const jsm = await jetstreamManager(nc, { timeout: 3000 });
        await jsm.getAccountInfo();
      } catch (e) { console.error(e.message); await nc.close().catch(() => {}); process.exit(2); }
      await nc.close();
    })();
  ' "$1"
}

# ---------------------------------------------------------------------------------------------
# Starting infrastructure that is missing
# ---------------------------------------------------------------------------------------------
_infra_manual_help() {
  local missing="$1"
  err "not reachable on this machine: $missing"
  cat >&2 <<EOF
[$LOG_PREFIX] PostgreSQL 15+, Redis 7 and NATS 2.9+ with JetStream are needed. Do one of:
[$LOG_PREFIX]   a) start a Docker engine and re-run; the script then runs
[$LOG_PREFIX]        docker compose up -d $missing
[$LOG_PREFIX]   b) re-run as root on Debian/Ubuntu; the script then installs and starts them, or do it yourself:
[$LOG_PREFIX]        sudo apt-get update && sudo apt-get install -y postgresql redis-server nats-server
[$LOG_PREFIX]        sudo pg_ctlcluster \$(ls /etc/postgresql) main start   # and allow 'trust' for 127.0.0.1/32 + ::1/128 in pg_hba.conf
[$LOG_PREFIX]        redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
[$LOG_PREFIX]        nats-server -a 127.0.0.1 -p 4222 -js -sd /tmp/nats-store &
[$LOG_PREFIX]   c) point DATABASE_URL, REDIS_URL and NATS_URL at servers that are running.
EOF
  exit 1
}

_infra_start_docker() {
  local -a services=("$@")
  local -a compose
  if docker compose version >/dev/null 2>&1; then
    compose=(docker compose)
  elif have docker-compose; then
    compose=(docker-compose)
  else
    die "Docker is running but 'docker compose' is not available" "install the Docker Compose plugin, or start ${services[*]} yourself"
  fi
  [[ -f "$ROOT_DIR/docker-compose.yml" || -f "$ROOT_DIR/compose.yaml" || -f "$ROOT_DIR/compose.yml" || -f "$ROOT_DIR/docker-compose.yaml" ]] ||
    die "no docker-compose.yml in $ROOT_DIR" "start ${services[*]} yourself or restore docker-compose.yml"
  log "starting ${services[*]} with: ${compose[*]} up -d ${services[*]}"
  (cd "$ROOT_DIR" && "${compose[@]}" up -d "${services[@]}") ||
    die "'${compose[*]} up -d ${services[*]}' failed" "see the Docker messages above (a port already in use?)"
}

_apt_updated=0
_apt_install() {
  if ((_apt_updated == 0)); then
    log "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -q || die "apt-get update failed" "check the network / apt sources"
    _apt_updated=1
  fi
  log "apt-get install -y $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" || die "apt-get install $* failed" "see the apt messages above"
}

_start_postgres_apt() {
  local port="$1" ver conf
  if [[ ! -d /etc/postgresql ]] || ! have pg_ctlcluster; then _apt_install postgresql; fi
  # shellcheck disable=SC2012 # version directory names are plain numbers
  ver="$(ls /etc/postgresql | sort -V | tail -n 1)"
  [[ -n "$ver" && -d "/etc/postgresql/$ver/main" ]] ||
    die "no PostgreSQL cluster found in /etc/postgresql" "create one: pg_createcluster <version> main --start"
  conf="/etc/postgresql/$ver/main/pg_hba.conf"
  if [[ "$port" != 5432 ]]; then
    warn "DATABASE_URL uses port $port; the Debian cluster listens on the port in /etc/postgresql/$ver/main/postgresql.conf"
  fi
  if ! grep -q 'crm-dev: trust local TCP' "$conf"; then
    log "allowing passwordless local TCP connections for user postgres in $conf"
    local tmp
    tmp="$(mktemp)"
    {
      echo '# crm-dev: trust local TCP connections as postgres (added by scripts/lib.sh)'
      echo 'host    all    postgres    127.0.0.1/32    trust'
      echo 'host    all    postgres    ::1/128         trust'
      cat "$conf"
    } >"$tmp"
    cat "$tmp" >"$conf"
    rm -f "$tmp"
  fi
  log "starting PostgreSQL $ver (pg_ctlcluster)"
  if pg_ctlcluster --skip-systemctl-redirect "$ver" main status >/dev/null 2>&1; then
    pg_ctlcluster --skip-systemctl-redirect "$ver" main reload || die "could not reload PostgreSQL $ver"
  else
    pg_ctlcluster --skip-systemctl-redirect "$ver" main start ||
      die "could not start PostgreSQL $ver" "see /var/log/postgresql/postgresql-$ver-main.log"
  fi
}

_start_redis_apt() {
  local port="$1"
  have redis-server || _apt_install redis-server
  log "starting Redis on 127.0.0.1:$port"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no >/dev/null ||
    die "could not start redis-server"
}

_start_nats_apt() {
  local port="$1"
  [[ -x /usr/sbin/nats-server ]] || _apt_install nats-server
  mkdir -p /var/lib/nats-server
  log "starting NATS with JetStream on 127.0.0.1:$port"
  # --pidfile: a nats-server already running on another port must not count as "already running".
  start-stop-daemon --start --oknodo --background --make-pidfile --pidfile "/run/nats-server-$port.pid" \
    --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p "$port" -js -sd /var/lib/nats-server -l /var/log/nats-server.log ||
    die "could not start nats-server" "see /var/log/nats-server.log"
}

# ensure_infra: makes sure PostgreSQL, Redis and NATS (JetStream) answer at DATABASE_URL, REDIS_URL,
# NATS_URL (defaults: local). Never touches a server that already answers; starts only the missing
# local ones (Docker compose if a Docker engine answers, else Debian packages as root).
ensure_infra() {
  local db_url="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/crm}"
  local redis_url="${REDIS_URL:-redis://127.0.0.1:6379}"
  local nats_url="${NATS_URL:-nats://127.0.0.1:4222}"
  local pg_host pg_port rd_host rd_port nt_host nt_port
  pg_host="$(url_host "$db_url")"
  pg_port="$(url_port "$db_url" 5432)"
  rd_host="$(url_host "$redis_url")"
  rd_port="$(url_port "$redis_url" 6379)"
  nt_host="$(url_host "$nats_url")"
  nt_port="$(url_port "$nats_url" 4222)"

  local -a missing=() compose_services=()
  local key name host port svc
  for svc in "postgres|PostgreSQL|$pg_host|$pg_port|$db_url" "redis|Redis|$rd_host|$rd_port|$redis_url" "nats|NATS|$nt_host|$nt_port|$nats_url"; do
    IFS='|' read -r key name host port _ <<<"$svc"
    if tcp_open "$host" "$port"; then
      log "  $name: $host:$port answers"
    elif is_local_host "$host"; then
      log "  $name: nothing listens on $host:$port"
      missing+=("$key:$port")
      compose_services+=("$key")
    else
      die "$name at $host:$port is not reachable (from ${svc##*|})" \
        "start it, or fix the URL (DATABASE_URL / REDIS_URL / NATS_URL); only local servers are started automatically"
    fi
  done

  local settle=5
  if ((${#missing[@]} > 0)); then
    settle=60
    if have docker && timeout 20 docker info >/dev/null 2>&1; then
      _infra_start_docker "${compose_services[@]}"
    elif [[ "$(id -u)" == 0 ]] && have apt-get; then
      local item
      for item in "${missing[@]}"; do
        case "${item%%:*}" in
          postgres) _start_postgres_apt "${item#*:}" ;;
          redis) _start_redis_apt "${item#*:}" ;;
          nats) _start_nats_apt "${item#*:}" ;;
        esac
      done
    else
      _infra_manual_help "${compose_services[*]}"
    fi
    wait_tcp "$pg_host" "$pg_port" 60 || die "PostgreSQL still not reachable on $pg_host:$pg_port after 60 s"
    wait_tcp "$rd_host" "$rd_port" 30 || die "Redis still not reachable on $rd_host:$rd_port after 30 s"
    wait_tcp "$nt_host" "$nt_port" 30 || die "NATS still not reachable on $nt_host:$nt_port after 30 s"
  fi

  # PostgreSQL accepts a query (retry: a freshly started container restarts once during init).
  local deadline=$((SECONDS + settle)) out=""
  until out="$(pg_query_ok "$db_url" 2>&1)"; do
    if ((SECONDS >= deadline)); then
      die "PostgreSQL at $pg_host:$pg_port accepts connections but a query failed: ${out//$'\n'/ }" \
        "check the user/password in DATABASE_URL and pg_hba.conf (local TCP as user postgres must be allowed)"
    fi
    sleep 1
  done
  log "  PostgreSQL: query ok"

  redis_ping_ok "$rd_host" "$rd_port" ||
    die "something listens on $rd_host:$rd_port but does not answer PING like Redis" "check REDIS_URL"
  log "  Redis: PING ok"

  if [[ -x "$PROJECT_NODE" ]]; then
    local rc=0
    deadline=$((SECONDS + settle / 2))
    while true; do
      rc=0
      out="$(nats_jetstream_check "$nats_url" 2>&1)" || rc=$?
      ((rc == 1 && SECONDS < deadline)) || break
      sleep 1
    done
    case "$rc" in
      0) log "  NATS: JetStream enabled" ;;
      2) die "NATS at $nt_host:$nt_port answers but JetStream is not enabled (${out//$'\n'/ })" \
        "restart nats-server with JetStream: nats-server -js -sd <store dir> (or 'jetstream {}' in its config)" ;;
      *) die "cannot connect to NATS at $nats_url: ${out//$'\n'/ }" "check NATS_URL and that nats-server runs" ;;
    esac
  else
    warn "skipping the JetStream check (node_modules not installed yet)"
  fi
  ok "infrastructure ready (PostgreSQL $pg_host:$pg_port, Redis $rd_host:$rd_port, NATS $nt_host:$nt_port)"
}

# ---------------------------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------------------------
# http_status URL -> prints the HTTP status code (000 when no answer)
http_status() {
  if have curl; then
    curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$1" 2>/dev/null || true
  else
    project_node -e '
      fetch(process.argv[1], { signal: AbortSignal.timeout(3000) })
        .then((r) => console.log(r.status), () => console.log("000"));
    ' "$1" 2>/dev/null || printf '000'
  fi
}

# wait_http URL TIMEOUT_SECONDS [PID]: waits for a 2xx answer; fails early if PID is given and exits.
wait_http() {
  local url="$1" timeout="$2" pid="${3:-}" code
  local deadline=$((SECONDS + timeout))
  while true; do
    code="$(http_status "$url")"
    [[ "$code" == 2* ]] && return 0
    if [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null; then return 2; fi
    ((SECONDS < deadline)) || return 1
    sleep 1
  done
}

# The browser end-to-end tests drive Debian's Chromium (playwright-core never downloads one).
ensure_chromium() {
  local chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
  if [[ -x "$chromium" ]]; then
    ok "Chromium present ($chromium)"
    return 0
  fi
  if [[ "$(id -u)" == 0 ]] && have apt-get; then
    _apt_install --no-install-recommends chromium
    ok "Chromium installed"
  else
    die "Chromium is missing at $chromium (needed by the browser tests)" "run: sudo apt-get install -y chromium   (or set CHROMIUM_PATH)"
  fi
}
