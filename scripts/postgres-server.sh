#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: Debian's `postgresql` (installed if missing), initdb in a temporary
# directory, listening on 127.0.0.1 only, on a free port, as the `postgres` user when run as root (the server
# refuses root), no fsync (nothing here needs to survive a crash).
#
#   bash scripts/postgres-server.sh start     starts it (once per directory) and prints its URL
#   bash scripts/postgres-server.sh stop      stops it, keeping its data and port (the tests restart it)
#   bash scripts/postgres-server.sh freeze    stops every server process (SIGSTOP): it answers nothing
#   bash scripts/postgres-server.sh thaw      resumes them (SIGCONT)
#   bash scripts/postgres-server.sh destroy   stops it and deletes the directory
#
# The directory is $RATELIMIT_POSTGRES_DIR (default: /tmp/ratelimit-postgres-$USER).
set -euo pipefail
dir=${RATELIMIT_POSTGRES_DIR:-/tmp/ratelimit-postgres-${USER:-$(id -un)}}

bin_dir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

if [[ -z "$(bin_dir)" ]]; then
  echo "installing Debian's postgresql" >&2
  if [[ $(id -u) -ne 0 ]]; then echo "postgresql is missing and this is not root: apt-get install postgresql" >&2; exit 1; fi
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
fi
bin=$(bin_dir)

# Runs a server command as the user that owns the data.
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

case "${1:-}" in
  start)
    if [[ ! -f "$dir/port" ]]; then
      mkdir -p "$dir"
      [[ $(id -u) -eq 0 ]] && chown postgres "$dir"
      as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
      free_port >"$dir/port"
    fi
    port=$(cat "$dir/port")
    if ! as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >&2 ||
        { tail -20 "$dir/server.log" >&2; exit 1; }
    fi
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    if [[ -d "$dir/data" ]]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true; fi
    ;;
  freeze | thaw)
    # The server and every backend stopped (SIGSTOP) or resumed (SIGCONT): a database that accepts
    # connections and statements but answers nothing, as a stalled host does.
    signal=STOP
    [[ $1 == thaw ]] && signal=CONT
    postmaster=$(head -1 "$dir/data/postmaster.pid")
    kill -s "$signal" "$postmaster" $(pgrep -P "$postmaster") 2>/dev/null || true
    ;;
  destroy)
    if [[ -d "$dir/data" ]]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start|stop|freeze|thaw|destroy" >&2
    exit 2
    ;;
esac
