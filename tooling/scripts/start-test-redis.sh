#!/usr/bin/env bash
# Starts a throwaway redis-server on 127.0.0.1 at a free port (no persistence) for the tests and
# prints its URL, for KERNELTUNE_TEST_REDIS_URL. Needs Debian's redis-server (installed by .ci/run).
# With KERNELTUNE_TEST_STATE_DIR set, it leaves redis.stop there: a script that stops this server
# (.ci/run runs every *.stop on exit, also when a test fails).
set -euo pipefail
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  echo "redis-server is not installed: apt-get install -y redis-server" >&2
  exit 1
fi
# A port the kernel hands out for 127.0.0.1 right now (redis has no "port 0").
PORT="${KERNELTUNE_TEST_REDIS_PORT:-$(node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}"
DIR="$(mktemp -d "${TMPDIR:-/tmp}/kerneltune-test-redis-XXXXXX")"
redis-server --bind 127.0.0.1 --port "$PORT" --save '' --appendonly no --dir "$DIR" \
  --daemonize yes --pidfile "$DIR/redis.pid" --logfile "$DIR/redis.log" >/dev/null
for _ in $(seq 1 50); do
  [ "$(redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null)" = PONG ] && break
  sleep 0.1
done
if [ "$(redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null)" != PONG ]; then
  echo "redis-server did not answer on 127.0.0.1:$PORT; its log:" >&2
  tail -n 20 "$DIR/redis.log" >&2 || true
  exit 1
fi
if [ -n "${KERNELTUNE_TEST_STATE_DIR:-}" ]; then
  cat >"$KERNELTUNE_TEST_STATE_DIR/redis.stop" <<STOP
redis-cli -h 127.0.0.1 -p $PORT shutdown nosave >/dev/null 2>&1 || kill "\$(cat $DIR/redis.pid 2>/dev/null)" 2>/dev/null || true
rm -rf "$DIR"
echo "stopped the test redis-server on 127.0.0.1:$PORT" >&2
STOP
fi
echo "redis://127.0.0.1:$PORT"
