#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster on 127.0.0.1 for the store's test suite and prints the
# URL to use as KERNELTUNE_TEST_PG_URL. Needs Debian's postgresql package (installed by .ci/run).
# With KERNELTUNE_TEST_STATE_DIR set and a cluster this script started (not one already running),
# it leaves postgres.stop there: a script that stops it (.ci/run runs every *.stop on exit).
set -euo pipefail
PORT="${KERNELTUNE_TEST_PG_PORT:-54329}"
DIR="${KERNELTUNE_TEST_PG_DIR:-/tmp/kerneltune-test-pg}"
BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
if [ -z "$BIN" ]; then
  echo "PostgreSQL is not installed: apt-get install -y postgresql" >&2
  exit 1
fi
as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi; }
if ! as_pg "$BIN/pg_isready -h 127.0.0.1 -p $PORT" >/dev/null 2>&1; then
  if [ ! -f "$DIR/PG_VERSION" ]; then
    mkdir -p "$DIR"
    [ "$(id -u)" = 0 ] && chown postgres "$DIR"
    as_pg "$BIN/initdb -D $DIR --auth=trust -U postgres >/dev/null"
  fi
  as_pg "$BIN/pg_ctl -D $DIR -o '-p $PORT -k /tmp -c listen_addresses=127.0.0.1' -l $DIR/server.log -w start >/dev/null"
  if [ -n "${KERNELTUNE_TEST_STATE_DIR:-}" ]; then
    cat >"$KERNELTUNE_TEST_STATE_DIR/postgres.stop" <<STOP
as_pg() { if [ "\$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "\$*"; else bash -c "\$*"; fi; }
as_pg "$BIN/pg_ctl -D $DIR -m fast -w stop >/dev/null" || true
echo "stopped the test PostgreSQL on 127.0.0.1:$PORT" >&2
STOP
  fi
fi
as_pg "$BIN/psql -h 127.0.0.1 -p $PORT -U postgres -tAc \"SELECT 1 FROM pg_database WHERE datname='kerneltune_test'\"" | grep -q 1 ||
  as_pg "$BIN/createdb -h 127.0.0.1 -p $PORT -U postgres kerneltune_test"
echo "postgres://postgres@127.0.0.1:$PORT/kerneltune_test"
