"""A small HTTP front over the real mem0ai library, for OryxOS test suites.

Speaks the self-hosted mem0 REST endpoints of docs/CONTRACT.md §6 on 127.0.0.1, backed by
mem0's Memory with qdrant in local `path` mode and a deterministic offline
embedder. The LLM is never called: adds always go through infer=False (an add asking for
infer=true is stored verbatim, as an LLM keeping the fact whole would, and noted in /__adds).

Usage: python server.py PORT   (normally started by serve.sh)
"""

import hashlib
import json
import logging
import math
import os
import re
import shutil
import signal
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

DATA = os.path.abspath(os.environ.get("MEM0_DATA") or "mem0-data")
# mem0 reads these at import time: set them before importing it.
os.environ["MEM0_TELEMETRY"] = "False"
os.environ.setdefault("MEM0_DIR", os.path.join(DATA, "mem0dir"))
os.makedirs(os.environ["MEM0_DIR"], exist_ok=True)

from mem0 import Memory  # noqa: E402
from mem0.embeddings.base import EmbeddingBase  # noqa: E402
from mem0.exceptions import ValidationError as Mem0ValidationError  # noqa: E402

# spaCy (BM25 lemmatisation, entity boosts) and fastembed (BM25 vectors) are
# optional extras left out on purpose: search is mem0's semantic path alone.
logging.getLogger("mem0.utils.spacy_models").setLevel(logging.ERROR)

DIMS = 512
DEFAULT_TOP_K = 1000
# Anything that reaches for OpenAI by mistake fails fast on a closed local port.
DEAD_URL = "http://127.0.0.1:9/v1"


class HashEmbedding(EmbeddingBase):
    """Deterministic offline embedder: signed feature hashing of words and
    character 3-grams, sublinear term frequency, L2-normalised. Same text gives
    the same vector; texts sharing words or word pieces give near vectors;
    unrelated texts land near cosine 0 (under mem0's default 0.1 threshold)."""

    def embed(self, text, memory_action=None):
        counts = {}
        for word in re.findall(r"\w+", str(text).lower()):
            feats = ["w:" + word]
            padded = f" {word} "
            feats += ["c:" + padded[i:i + 3] for i in range(len(padded) - 2)]
            for f in feats:
                counts[f] = counts.get(f, 0) + 1
        vec = [0.0] * DIMS
        for feat, n in counts.items():
            h = int.from_bytes(hashlib.blake2b(feat.encode(), digest_size=8).digest(), "little")
            weight = (1.0 + math.log(n)) * (2.0 if feat.startswith("w:") else 1.0)
            vec[h % DIMS] += weight if (h >> 32) & 1 else -weight
        norm = math.sqrt(sum(v * v for v in vec))
        if norm == 0.0:  # no words at all: a fixed unit vector
            vec[0], norm = 1.0, 1.0
        return [v / norm for v in vec]


def _no_llm(*_args, **_kwargs):
    raise RuntimeError("the mem0 test server never calls an LLM (use infer=false)")


def build_memory():
    config = {
        "vector_store": {
            "provider": "qdrant",
            "config": {
                "collection_name": "oryxos",
                "path": os.path.join(DATA, "qdrant"),
                "embedding_model_dims": DIMS,
            },
        },
        "embedder": {
            "provider": "openai",
            "config": {"api_key": "sk-dummy", "model": "text-embedding-3-small",
                       "embedding_dims": DIMS, "openai_base_url": DEAD_URL},
        },
        "llm": {
            "provider": "openai",
            "config": {"api_key": "sk-dummy", "model": "gpt-4o-mini", "openai_base_url": DEAD_URL},
        },
        "history_db_path": os.path.join(DATA, "history.db"),
    }
    memory = Memory.from_config(config)
    # mem0 calls self.embedding_model.embed/embed_batch everywhere: swap it.
    memory.embedding_model = HashEmbedding(memory.embedding_model.config)
    memory.llm.generate_response = _no_llm
    return memory


MEMORY = None
LOCK = threading.Lock()  # qdrant local mode is single-process and not thread-safe
FAULT = {"mode": os.environ.get("MEM0_FAULT", "none"),
         "delay_ms": int(os.environ.get("MEM0_FAULT_DELAY_MS", "0") or 0)}
FAULT_MODES = ("none", "error500", "slow", "malformed")
# Requests being answered (test control excluded): tests poll GET /__faults until it is 0
# instead of sleeping for as long as a slow fault might still hold one.
IN_FLIGHT = {"n": 0}
IN_FLIGHT_LOCK = threading.Lock()
# Every add as (user_id, infer asked for), oldest first: tests check what a client asked for.
ADDS = []
API_KEY = os.environ.get("MEM0_TEST_API_KEY") or None
# Minimum similarity for /search hits when the request gives no "threshold";
# unset means mem0's own default (0.1).
SEARCH_THRESHOLD = os.environ.get("MEM0_SEARCH_THRESHOLD")


class HttpError(Exception):
    def __init__(self, status, detail):
        super().__init__(detail)
        self.status, self.detail = status, detail


def _user_id(value):
    if not isinstance(value, str) or not value.strip():
        raise HttpError(400, "user_id is required")
    return value


def _top_k(raw, default):
    if raw is None:
        return default
    try:
        n = int(raw)
    except (TypeError, ValueError):
        n = -1
    if isinstance(raw, bool) or n < 1:
        raise HttpError(400, "top_k must be a positive integer")
    return n


def _valid_id(memory_id):
    try:
        uuid.UUID(memory_id)
        return True
    except ValueError:
        return False


class Handler(BaseHTTPRequestHandler):
    server_version = "oryxos-mem0-test/1"
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # no 40 ms Nagle/delayed-ACK stalls on small replies

    def log_message(self, fmt, *args):
        if os.environ.get("MEM0_LOG"):
            sys.stderr.write("mem0-test: " + (fmt % args) + "\n")

    def do_GET(self):
        self._dispatch("GET")

    def do_POST(self):
        self._dispatch("POST")

    def do_DELETE(self):
        self._dispatch("DELETE")

    def do_PUT(self):
        self._dispatch("PUT")

    # --- plumbing -----------------------------------------------------------
    def _send(self, status, payload=None, raw=None):
        body = raw if raw is not None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _body(self):
        try:
            body = json.loads(self._raw or b"null")
        except ValueError:
            raise HttpError(400, "request body is not valid JSON")
        if not isinstance(body, dict):
            raise HttpError(400, "request body must be a JSON object")
        return body

    def _authorised(self):
        if API_KEY is None:
            return True
        return (self.headers.get("Authorization") == f"Bearer {API_KEY}"
                or self.headers.get("X-API-Key") == API_KEY)

    def _dispatch(self, method):
        url = urlsplit(self.path)
        path = url.path.rstrip("/") or "/"
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        # Always drain the body first, so a keep-alive connection stays in sync.
        length = int(self.headers.get("Content-Length") or 0)
        self._raw = self.rfile.read(length) if length > 0 else b""
        try:
            if path == "/__faults":  # test control: exempt from faults and auth
                return self._faults(method)
            if path == "/__adds" and method == "GET":  # test control too
                with LOCK:
                    return self._send(200, [{"user_id": u, "infer": i} for u, i in ADDS])
            with IN_FLIGHT_LOCK:
                IN_FLIGHT["n"] += 1
            try:
                return self._answer(method, path, query)
            finally:
                with IN_FLIGHT_LOCK:
                    IN_FLIGHT["n"] -= 1
        except HttpError as e:
            self._send(e.status, {"detail": e.detail})

    def _answer(self, method, path, query):
        try:
            mode = FAULT["mode"]
            if mode == "slow":
                time.sleep(FAULT["delay_ms"] / 1000.0)
            elif mode == "error500":
                return self._send(500, {"detail": "injected"})
            elif mode == "malformed":
                return self._send(200, raw=b"not json{")
            if not self._authorised():
                return self._send(401, {"detail": "Invalid or missing API key"})
            status, payload = self._route(method, path, query)
            self._send(status, payload)
        except HttpError as e:
            self._send(e.status, {"detail": e.detail})
        except (ValueError, Mem0ValidationError) as e:  # mem0 rejecting the input
            self._send(400, {"detail": str(e)})
        except Exception as e:  # what the upstream server does: 500 + message
            self._send(500, {"detail": f"{type(e).__name__}: {e}"})

    def _faults(self, method):
        if method == "POST":
            body = self._body()
            mode = body.get("mode", "none")
            if mode not in FAULT_MODES:
                raise HttpError(400, f"mode must be one of {', '.join(FAULT_MODES)}")
            delay = body.get("delay_ms", 0)
            if not isinstance(delay, int) or isinstance(delay, bool) or delay < 0:
                raise HttpError(400, "delay_ms must be a non-negative integer")
            FAULT["mode"], FAULT["delay_ms"] = mode, delay
        elif method != "GET":
            raise HttpError(404, "Not found")
        with IN_FLIGHT_LOCK:
            in_flight = IN_FLIGHT["n"]
        self._send(200, dict(FAULT, in_flight=in_flight))

    # --- the mem0 endpoints ---------------------------------------------------
    def _route(self, method, path, query):
        if path == "/health" and method == "GET":
            return 200, {"status": "ok"}
        if path == "/memories":
            if method == "POST":
                return 200, self._add(self._body())
            if method == "GET":
                user = _user_id(query.get("user_id"))
                top_k = _top_k(query.get("top_k"), DEFAULT_TOP_K)
                with LOCK:
                    return 200, MEMORY.get_all(filters={"user_id": user}, top_k=top_k)
            if method == "DELETE":
                user = _user_id(query.get("user_id"))
                with LOCK:
                    MEMORY.delete_all(user_id=user)
                return 200, {"message": "All relevant memories deleted"}
        if path == "/search" and method == "POST":
            return 200, self._search(self._body())
        if path.startswith("/memories/") and path.count("/") == 2:
            memory_id = unquote(path[len("/memories/"):])
            if method == "GET":
                if not _valid_id(memory_id):
                    return 200, None
                with LOCK:
                    return 200, MEMORY.get(memory_id)
            if method == "DELETE":
                with LOCK:
                    if not _valid_id(memory_id) or MEMORY.get(memory_id) is None:
                        raise HttpError(404, f"Memory with id {memory_id} not found")
                    MEMORY.delete(memory_id)
                return 200, {"message": "Memory deleted successfully"}
            if method == "PUT":
                body = self._body()
                text = body.get("text")
                metadata = body.get("metadata")
                if not isinstance(text, str) or not text:
                    raise HttpError(400, "text must be a non-empty string")
                if metadata is not None and not isinstance(metadata, dict):
                    raise HttpError(400, "metadata must be an object")
                with LOCK:
                    if not _valid_id(memory_id) or MEMORY.get(memory_id) is None:
                        raise HttpError(404, f"Memory with id {memory_id} not found")
                    return 200, MEMORY.update(memory_id, text=text, metadata=metadata)
        raise HttpError(404, "Not found")

    def _add(self, body):
        user = _user_id(body.get("user_id"))
        messages = body.get("messages")
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        if (not isinstance(messages, list) or not messages
                or not all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in messages)):
            raise HttpError(400, "messages must be a non-empty list of {role, content}")
        infer = body.get("infer", True)
        if not isinstance(infer, bool):
            raise HttpError(400, "infer must be a boolean")
        metadata = body.get("metadata")
        if metadata is not None and not isinstance(metadata, dict):
            raise HttpError(400, "metadata must be an object")
        with LOCK:
            ADDS.append((user, infer))
            # No LLM here: what infer=true would distil is kept verbatim.
            return MEMORY.add(messages, user_id=user, metadata=metadata, infer=False)

    def _search(self, body):
        user = _user_id(body.get("user_id"))
        query = body.get("query")
        if not isinstance(query, str) or not query.strip():
            raise HttpError(400, "query must be a non-empty string")
        filters = body.get("filters") or {}
        if not isinstance(filters, dict):
            raise HttpError(400, "filters must be an object")
        kwargs = {"top_k": _top_k(body.get("top_k"), 20)}
        threshold = body.get("threshold", SEARCH_THRESHOLD)
        if threshold is not None:
            try:
                kwargs["threshold"] = float(threshold)
            except (TypeError, ValueError):
                raise HttpError(400, "threshold must be a number")
        with LOCK:
            return MEMORY.search(query, filters={**filters, "user_id": user}, **kwargs)


def main():
    global MEMORY
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit("usage: server.py PORT")
    port = int(sys.argv[1])
    if FAULT["mode"] not in FAULT_MODES:
        sys.exit(f"MEM0_FAULT must be one of {', '.join(FAULT_MODES)}")
    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)  # a busy port fails fast
    httpd.daemon_threads = True
    MEMORY = build_memory()

    def stop(_signum, _frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"mem0 test server listening on http://127.0.0.1:{port}", file=sys.stderr, flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
        with LOCK:
            MEMORY.close()  # the history sqlite db
            MEMORY.vector_store.client.close()  # flushes qdrant, releases the path lock
        if os.environ.get("MEM0_DATA_CLEANUP") == "1":
            shutil.rmtree(DATA, ignore_errors=True)
        print("mem0 test server stopped", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
