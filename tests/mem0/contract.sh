#!/usr/bin/env bash
# `make mem0-contract`: runs "$@" (a `cargo test ... -- --ignored`) with the mem0 test server up
# (with-server.sh), then fails unless every test in expected-tests.txt ran and passed: cargo's
# exit status alone cannot tell a mem0 test that passed from one that never ran.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
EXPECTED="${MEM0_EXPECTED_TESTS:-$HERE/expected-tests.txt}"
log=$(mktemp)
passed=$(mktemp)
trap 'rm -f "$log" "$passed"' EXIT

"$HERE/with-server.sh" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

# "Running tests/x.rs (target/...)" opens each test file's results; "test NAME ... ok" follow.
awk '/^ *Running / { file = $2; next }
     /^test .* \.\.\. ok$/ { print file " " $2 }' "$log" | sort -u >"$passed"

missing=0
total=0
while read -r file name; do
  case "$file" in '' | '#'*) continue ;; esac
  total=$((total + 1))
  if ! grep -Fxq "$file $name" "$passed"; then
    echo "mem0-contract: $file $name did not run (or did not pass)" >&2
    missing=$((missing + 1))
  fi
done <"$EXPECTED"

if [ "$status" -ne 0 ]; then
  echo "mem0-contract: the test run failed (exit $status)" >&2
  exit "$status"
fi
if [ "$total" -eq 0 ]; then
  echo "mem0-contract: $EXPECTED lists no tests" >&2
  exit 1
fi
if [ "$missing" -ne 0 ]; then
  echo "mem0-contract: $missing of the $total expected mem0 tests did not run" >&2
  exit 1
fi
echo "mem0-contract: all $total expected mem0 tests ran and passed"
