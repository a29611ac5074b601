#!/usr/bin/env bash
# Smoke test of the mem0 test server: starts serve.sh on a free port, checks the
# CONTRACT §6 endpoints against it, stops it. Prints "N passed, N failed"; exits
# non-zero on any failure. Set MEM0_TEST_API_KEY to also check key rejection.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="${PYTHON:-python3}"
PORT="$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
LOG="$(mktemp "${TMPDIR:-/tmp}/mem0-smoke.XXXXXX.log")"
READY="mem0 test server listening on http://127.0.0.1:$PORT"

t0=$(date +%s%N)
"$HERE/serve.sh" "$PORT" 2>"$LOG" &
PID=$!
trap 'kill "$PID" 2>/dev/null; rm -f "$LOG"' EXIT

# Wait for the ready line (the first run also creates the venv: allow 10 min).
for _ in $(seq 1 6000); do
  grep -qF "$READY" "$LOG" && break
  kill -0 "$PID" 2>/dev/null || break
  sleep 0.1
done
if ! grep -qF "$READY" "$LOG"; then
  echo "server did not become ready; its stderr:" >&2
  cat "$LOG" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
ready_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
venv_ms="$(sed -n 's/.*venv ready in \([0-9]*\) ms.*/\1/p' "$LOG")"
echo "ready line: $READY"
if [ -n "$venv_ms" ]; then
  echo "timing: venv creation+install ${venv_ms} ms; server start $((ready_ms - venv_ms)) ms"
else
  echo "timing: venv already present; server start ${ready_ms} ms"
fi

COUNTS="$(mktemp "${TMPDIR:-/tmp}/mem0-smoke.XXXXXX.counts")"
echo "0 1" >"$COUNTS"   # overwritten by the checks when they run to the end
export SMOKE_COUNTS="$COUNTS"
"$PY" - "http://127.0.0.1:$PORT" <<'PYEOF'
import json, os, statistics, sys, time, urllib.error, urllib.request, uuid

BASE = sys.argv[1]
KEY = os.environ.get("MEM0_TEST_API_KEY")
USER = "oryxos:agentA"
passed = failed = 0


def call(method, path, body=None, auth=True, raw=None, headers=None):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(BASE + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if KEY and auth:
        req.add_header("Authorization", f"Bearer {KEY}")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            status, text = resp.status, resp.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def add(content, scope, ts, user=USER):
    return call("POST", "/memories", {"messages": [{"role": "user", "content": content}],
                                      "user_id": user, "metadata": {"scope": scope, "ts": ts},
                                      "infer": False})


def timed(fn, n):
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    return statistics.median(samples), max(samples)


st, body = call("GET", "/health")
check("health", st == 200 and body == {"status": "ok"}, f"{st} {body}")

core = "Core: the user prefers answers in French"
arch = "Archival: we talked about the pelican migration in spring"
st, body = add(core + " (pelican fan)", "CORE", "2026-01-01T10:00:00Z")
core_id = body["results"][0]["id"] if st == 200 and body.get("results") else None
check("add core", st == 200 and body["results"][0]["memory"] == core + " (pelican fan)"
      and body["results"][0]["event"] == "ADD", f"{st} {body}")
st, body = add(arch, "ARCHIVAL", "2026-01-02T10:00:00Z")
arch_id = body["results"][0]["id"] if st == 200 and body.get("results") else None
check("add archival", st == 200 and body["results"][0]["memory"] == arch, f"{st} {body}")
add("Archival: the quarterly budget review is on Monday", "ARCHIVAL", "2026-01-03T10:00:00Z")

st, body = call("GET", f"/memories?user_id={USER}&top_k=1000")
items = body.get("results", []) if isinstance(body, dict) else []
by_id = {i["id"]: i for i in items}
check("get-all returns all three", st == 200 and len(items) == 3, f"{st} {body}")
keys_ok = all({"id", "memory", "metadata", "created_at", "updated_at", "user_id"} <= set(i) for i in items)
check("get-all item shape", keys_ok, json.dumps(items[:1]))
a = by_id.get(arch_id, {})
check("get-all keeps text and metadata verbatim",
      a.get("memory") == arch and a.get("metadata", {}).get("scope") == "ARCHIVAL"
      and a.get("metadata", {}).get("ts") == "2026-01-02T10:00:00Z" and a.get("user_id") == USER, json.dumps(a))
st, body = call("GET", f"/memories?user_id={USER}&top_k=2")
check("get-all honours top_k", st == 200 and len(body["results"]) == 2, f"{st} {body}")
st, body = call("GET", "/memories?user_id=oryxos:agentB")
check("get-all is per user", st == 200 and body["results"] == [], f"{st} {body}")

st, body = call("POST", "/search", {"query": "pelican", "user_id": USER,
                                    "filters": {"scope": "ARCHIVAL"}, "top_k": 50})
res = body.get("results", []) if isinstance(body, dict) else []
check("search finds the archival item", st == 200 and any(r["id"] == arch_id for r in res), f"{st} {body}")
check("search scope filter excludes core", all(r["metadata"]["scope"] == "ARCHIVAL" for r in res)
      and not any(r["id"] == core_id for r in res), json.dumps(res))
check("search items carry a score", all(isinstance(r.get("score"), float) for r in res), json.dumps(res))
st, body = call("POST", "/search", {"query": "pelican", "user_id": USER, "top_k": 50})
check("search without scope filter sees core too",
      st == 200 and any(r["id"] == core_id for r in body["results"]), f"{st} {body}")

st, body = call("GET", f"/memories/{arch_id}")
check("get-one", st == 200 and body and body["memory"] == arch and body["metadata"]["scope"] == "ARCHIVAL", f"{st} {body}")
st, body = call("GET", f"/memories/{uuid.uuid4()}")
check("get-one unknown id is null", st == 200 and body is None, f"{st} {body}")
st, body = call("GET", "/memories/not-a-uuid")
check("get-one malformed id is null", st == 200 and body is None, f"{st} {body}")

st, body = call("DELETE", f"/memories/{core_id}")
check("delete one", st == 200 and call("GET", f"/memories/{core_id}")[1] is None, f"{st} {body}")
st, body = call("DELETE", f"/memories/{core_id}")
check("delete unknown is 404", st == 404 and "detail" in body, f"{st} {body}")

st, body = call("POST", "/memories", raw=b"{not json")
check("bad JSON is 400", st == 400 and "detail" in body, f"{st} {body}")
st, body = call("POST", "/memories", {"messages": [{"role": "user", "content": "x"}], "infer": False})
check("add without user_id is 400", st == 400 and "detail" in body, f"{st} {body}")
st, body = call("GET", "/memories")
check("get-all without user_id is 400", st == 400 and "detail" in body, f"{st} {body}")
st, body = call("GET", "/nope")
check("unknown route is 404", st == 404 and body == {"detail": "Not found"}, f"{st} {body}")

if KEY:
    st, body = call("GET", f"/memories?user_id={USER}", auth=False)
    check("api key: missing is 401", st == 401 and "detail" in body, f"{st} {body}")
    st, _ = call("GET", f"/memories?user_id={USER}", auth=False, headers={"Authorization": "Bearer wrong"})
    check("api key: wrong is 401", st == 401, str(st))
    st, _ = call("GET", f"/memories?user_id={USER}", auth=False, headers={"X-API-Key": KEY})
    check("api key: X-API-Key accepted", st == 200, str(st))
else:
    print("skip api-key checks (MEM0_TEST_API_KEY not set)")

call("POST", "/__faults", {"mode": "error500"})
st, body = call("GET", "/health")
check("fault error500", st == 500 and body == {"detail": "injected"}, f"{st} {body}")
call("POST", "/__faults", {"mode": "malformed"})
st, body = call("GET", f"/memories?user_id={USER}")
check("fault malformed", st == 200 and body == "not json{", f"{st} {body}")
call("POST", "/__faults", {"mode": "slow", "delay_ms": 300})
t = time.perf_counter(); st, _ = call("GET", "/health"); slow = time.perf_counter() - t
check("fault slow", st == 200 and slow >= 0.3, f"{st} {slow:.3f}s")
st, body = call("POST", "/__faults", {"mode": "none"})
check("faults off", st == 200 and call("GET", "/health")[0] == 200, f"{st} {body}")

# Latencies (median / max over repeated calls), on a user with 50 entries.
n = [0]
def one_add():
    n[0] += 1
    add(f"Archival: latency probe number {n[0]} about pelicans", "ARCHIVAL", "2026-02-01T00:00:00Z", user="oryxos:bench")
add_p50, add_max = timed(one_add, 50)
ga_p50, ga_max = timed(lambda: call("GET", "/memories?user_id=oryxos:bench&top_k=1000"), 20)
se_p50, se_max = timed(lambda: call("POST", "/search", {"query": "pelican", "user_id": "oryxos:bench",
                                                        "filters": {"scope": "ARCHIVAL"}, "top_k": 50}), 20)
print(f"latency ms (median/max): add {add_p50:.1f}/{add_max:.1f}; "
      f"get-all(50) {ga_p50:.1f}/{ga_max:.1f}; search(50) {se_p50:.1f}/{se_max:.1f}")

# Concurrent clients: the server serialises access to mem0 (qdrant local mode).
import concurrent.futures as cf
with cf.ThreadPoolExecutor(8) as pool:
    codes = list(pool.map(lambda i: add(f"concurrent entry {i}", "ARCHIVAL", "2026-03-01T00:00:00Z",
                                        user="oryxos:conc")[0], range(80)))
st, body = call("GET", "/memories?user_id=oryxos:conc")
check("80 concurrent adds all stored", codes == [200] * 80 and len(body["results"]) == 80,
      f"{sorted(set(codes))} {len(body.get('results', []))}")

st, body = call("DELETE", "/memories?user_id=oryxos:bench")
check("reset a user", st == 200 and call("GET", "/memories?user_id=oryxos:bench")[1]["results"] == [], f"{st} {body}")

with open(os.environ["SMOKE_COUNTS"], "w") as f:
    f.write(f"{passed} {failed}\n")
PYEOF
read -r passed failed <"$COUNTS"
rm -f "$COUNTS"

# A clean stop on SIGTERM, which also removes the temporary data dir.
data_dir="$(tr '\0' '\n' <"/proc/$PID/environ" 2>/dev/null | sed -n 's/^MEM0_DATA=//p')"
kill -TERM "$PID"
for _ in $(seq 1 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
if wait "$PID" && grep -q "mem0 test server stopped" "$LOG" \
   && { [ -n "${MEM0_DATA:-}" ] || { [ -n "$data_dir" ] && [ ! -e "$data_dir" ]; }; }; then
  passed=$((passed + 1)); echo "ok   clean stop on SIGTERM"
else
  failed=$((failed + 1)); echo "FAIL clean stop on SIGTERM (data dir: ${data_dir:-?})"; cat "$LOG"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
