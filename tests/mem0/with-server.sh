#!/usr/bin/env bash
# Runs a command with the mem0 test server up: starts serve.sh on a free port, waits for its
# ready line, exports ORYX_MEM0_URL, runs "$@", then stops the server (SIGTERM).
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp)
bash "$HERE/serve.sh" "$port" 2>"$log" &
pid=$!
stop() { kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -f "$log"; }
trap stop EXIT
for _ in $(seq 1 900); do
  grep -q "listening on" "$log" && break
  if ! kill -0 "$pid" 2>/dev/null; then echo "mem0 test server failed to start:"; cat "$log"; exit 1; fi
  sleep 0.5
done
grep -q "listening on" "$log" || { echo "mem0 test server did not start in time"; cat "$log"; exit 1; }
export ORYX_MEM0_URL="http://127.0.0.1:$port"
echo "mem0 test server at $ORYX_MEM0_URL"
"$@"
