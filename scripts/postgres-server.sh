#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback, for the tests and the benchmark of the PostgreSQL
# store. `make test` runs the tests inside one:
#
#   scripts/postgres-server.sh run -- COMMAND [ARGS...]
#
# starts a server in a new folder under /tmp, runs COMMAND with TOOLGEN_TEST_POSTGRES_URL
# exported, then stops the server, deletes the folder and exits with COMMAND's status. Where
# the environment already names a server (TOOLGEN_TEST_POSTGRES_URL), COMMAND runs with that
# one. Where none can be started (PostgreSQL is missing and this is not root), it says why and
# runs COMMAND without one: the PostgreSQL tests then skip and say so (under CI they fail).
#
# A server that outlives one command (the benchmark, a session of test runs):
#
#   eval "$(scripts/postgres-server.sh start)"   # prints: export TOOLGEN_TEST_POSTGRES_URL=...
#   .venv/bin/python -m pytest tests/runtime     # the PostgreSQL tests run instead of skipping
#   scripts/postgres-server.sh stop
#
#   scripts/postgres-server.sh start|stop|url [DIR]
#
# DIR (default: $TOOLGEN_PG_DIR, else /tmp/toolgen-postgres) holds the cluster, its log, its
# socket and the port it listens on. Every step is skipped when already done, so a second
# `start` is quick: the server is installed from the system's packages only when missing
# (apt-get, as root), the cluster is created only when DIR has none, and a running server is
# reused. The server listens on 127.0.0.1 only, on a free port, with trust authentication: it
# is a test server, never a place for real data. PostgreSQL refuses to run as root, so as root
# the server runs as the unprivileged user `postgres` (created by the Debian package, or here if
# missing); DIR's parent folders must be traversable by that user (the default is).
set -euo pipefail

command=${1:-start}
if [[ $command == run ]]; then
  shift
  [[ ${1:-} == -- ]] && shift
  dir=""  # a new folder, made by run_with_server
else
  dir=${2:-${TOOLGEN_PG_DIR:-/tmp/toolgen-postgres}}
fi
role=toolgen
database=toolgen
os_user=${TOOLGEN_PG_OS_USER:-postgres}

say() { echo "postgres-server: $*" >&2; }

find_bindir() {
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [[ -z "$found" ]] && command -v pg_config >/dev/null 2>&1; then
    found=$(pg_config --bindir)
  fi
  [[ -n "$found" && -x "$found/initdb" && -x "$found/pg_ctl" ]] && echo "$found"
}

install_server() {
  if [[ $(id -u) -ne 0 ]]; then
    say "PostgreSQL is not installed; install it (Debian: apt-get install postgresql) or run as root"
    exit 1
  fi
  say "installing PostgreSQL from the system's packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends postgresql >&2
}

# as root, run as the unprivileged server user; otherwise as ourselves
as_server_user() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u "$os_user" -- "$@"
  else
    "$@"
  fi
}

# the port of the previous start if it is still free (the URL stays the same across a
# restart), else any free one
free_port() {
  local previous
  previous=$(cat "$dir/port" 2>/dev/null || echo 0)
  python3 - "$previous" <<'PY'
import socket, sys

def bind(port):
    with socket.socket() as s:
        # as the server binds: a port whose old connections linger in TIME_WAIT is free
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        return s.getsockname()[1]

previous = int(sys.argv[1])
try:
    print(bind(previous) if previous else bind(0))
except OSError:
    print(bind(0))
PY
}

url() {
  echo "postgresql://$role@127.0.0.1:$(cat "$dir/port")/$database"
}

running() {
  [[ -f "$dir/port" && -f "$dir/data/PG_VERSION" ]] &&
    as_server_user "$bindir/pg_ctl" -D "$dir/data" status >/dev/null 2>&1
}

start() {
  if running; then
    echo "export TOOLGEN_TEST_POSTGRES_URL=$(url)"
    return
  fi
  if [[ $(id -u) -eq 0 ]] && ! id "$os_user" >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin "$os_user"
  fi
  mkdir -p "$dir"
  [[ $(id -u) -eq 0 ]] && chown "$os_user" "$dir"
  if [[ ! -f "$dir/data/PG_VERSION" ]]; then
    say "creating a cluster in $dir/data"
    as_server_user "$bindir/initdb" -D "$dir/data" -U "$role" --auth=trust \
      --encoding=UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
  fi
  local port
  port=$(free_port)
  as_server_user bash -c "echo $port >'$dir/port'"
  say "starting on 127.0.0.1:$port (log: $dir/server.log)"
  as_server_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories='$dir'" \
    start >&2 || { tail -n 20 "$dir/server.log" >&2; exit 1; }
  if ! "$bindir/psql" -h 127.0.0.1 -p "$port" -U "$role" -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = '$database'" | grep -q 1; then
    "$bindir/psql" -h 127.0.0.1 -p "$port" -U "$role" -d postgres -qc \
      "CREATE DATABASE $database" >&2
  fi
  echo "export TOOLGEN_TEST_POSTGRES_URL=$(url)"
}

stop() {
  if running; then
    as_server_user "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >&2
  fi
}

# COMMAND with a server of its own (see the top of this file)
run_with_server() {
  if [[ -n ${TOOLGEN_TEST_POSTGRES_URL:-} ]]; then
    exec "$@"
  fi
  if [[ -z "$bindir" ]]; then
    (install_server) && bindir=$(find_bindir || true)
  fi
  # in /tmp, not $TMPDIR: the unprivileged server user must reach it (see the top)
  dir=$(mktemp -d /tmp/toolgen-postgres-XXXXXX)
  trap 'stop >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
  trap 'exit 130' INT TERM
  local exports
  if [[ -n "$bindir" ]] && exports=$(start 2>"$dir/start.log"); then
    eval "$exports"
    say "a throwaway server for this run: $TOOLGEN_TEST_POSTGRES_URL"
  else
    cat "$dir/start.log" >&2 2>/dev/null || true
    say "no PostgreSQL server could be started: the PostgreSQL tests will skip"
  fi
  set +e
  "$@"
  exit $?
}

bindir=$(find_bindir || true)
case "$command" in
  run)
    run_with_server "$@"
    ;;
  start)
    if [[ -z "$bindir" ]]; then
      install_server
      bindir=$(find_bindir) || { say "no initdb/pg_ctl after installing"; exit 1; }
    fi
    start
    ;;
  stop)
    [[ -n "$bindir" ]] && stop
    ;;
  url)
    running || { say "no server is running in $dir"; exit 1; }
    url
    ;;
  *)
    say "usage: $0 start|stop|url [DIR], or $0 run -- COMMAND [ARGS...]"
    exit 2
    ;;
esac
