#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL server (scripts/postgres-server.sh), with RATELIMIT_POSTGRES_URL set,
# and destroys the server when the command ends, however it ends:
#
#   bash scripts/with-postgres.sh swift test --traits Postgres
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export RATELIMIT_POSTGRES_DIR=${RATELIMIT_POSTGRES_DIR:-$(mktemp -d /tmp/ratelimit-postgres.XXXXXX)}
# The tests stop and start the server through this script.
export RATELIMIT_POSTGRES_SCRIPT="$here/postgres-server.sh"
trap 'bash "$RATELIMIT_POSTGRES_SCRIPT" destroy' EXIT
RATELIMIT_POSTGRES_URL=$(bash "$RATELIMIT_POSTGRES_SCRIPT" start)
export RATELIMIT_POSTGRES_URL
echo "PostgreSQL at $RATELIMIT_POSTGRES_URL" >&2
"$@"
