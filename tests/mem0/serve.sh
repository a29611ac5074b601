#!/usr/bin/env bash
# Run the mem0 test server (real mem0ai, offline embedder) on 127.0.0.1:PORT in
# the foreground. Prints "mem0 test server listening on http://127.0.0.1:PORT"
# to stderr once ready. SIGTERM/SIGINT stop it cleanly.
set -euo pipefail

PORT="${1:?usage: serve.sh PORT}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
VENV="${MEM0_VENV:-$REPO/target/mem0-venv}"
REQS="$HERE/requirements.txt"

# Create/refresh the venv once; a lock keeps parallel test servers from racing.
mkdir -p "$(dirname "$VENV")"
exec 9>"$VENV.lock"
flock 9
if ! cmp -s "$REQS" "$VENV/.requirements.txt" 2>/dev/null; then
  echo "mem0 test server: installing $REQS into $VENV" >&2
  started=$(date +%s%N)
  rm -rf "$VENV"
  "${PYTHON:-python3}" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQS" >&2
  cp "$REQS" "$VENV/.requirements.txt"
  echo "mem0 test server: venv ready in $(( ($(date +%s%N) - started) / 1000000 )) ms" >&2
fi
flock -u 9
exec 9>&-

if [ -z "${MEM0_DATA:-}" ]; then
  MEM0_DATA="$(mktemp -d "${TMPDIR:-/tmp}/mem0-test.XXXXXX")"
  export MEM0_DATA_CLEANUP=1   # the server removes a data dir it was given this way
fi
export MEM0_DATA
export MEM0_DIR="$MEM0_DATA/mem0dir"
export MEM0_TELEMETRY=False
export PYTHONUNBUFFERED=1

exec "$VENV/bin/python" "$HERE/server.py" "$PORT"
