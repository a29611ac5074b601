#!/usr/bin/env python3
"""An OpenAI-compatible chat completions server at the protocol level, for the LLM summariser's
tests. Standard library only. It prints `listening <port>` once ready.

POST /v1/chat/completions answers by the request's `model`:
  ok           a summary naming how many entry lines it was given and their first date
  slow         the same after 5 s (for timeouts)
  malformed    200 with a body that is not JSON
  empty        200 with no choices
  missing      404 with an OpenAI-style error ("model not found")
  anything else  500
A key other than `Bearer test-key` (when a key is sent or `--require-key`) is 401.
GET /requests returns every request body received, oldest first.
"""
import argparse
import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REQUESTS = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    require_key = False

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="application/json"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/requests":
            self.send(200, json.dumps(REQUESTS, ensure_ascii=False))
        else:
            self.send(404, json.dumps({"error": {"message": "not found"}}))

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        if self.path != "/v1/chat/completions":
            self.send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
            return
        auth = self.headers.get("Authorization")
        if (auth is not None or self.require_key) and auth != "Bearer test-key":
            self.send(401, json.dumps({"error": {"message": "Incorrect API key provided"}}))
            return
        try:
            req = json.loads(raw)
        except ValueError:
            self.send(400, json.dumps({"error": {"message": "body is not JSON"}}))
            return
        REQUESTS.append(req)
        model = req.get("model")
        user = next((m["content"] for m in req.get("messages", []) if m.get("role") == "user"), "")
        lines = [l for l in user.split("\n") if l.strip()]
        first = lines[0][1:11] if lines and lines[0].startswith("[") else "?"
        if model == "slow":
            time.sleep(5)
        if model in ("ok", "slow"):
            text = f"自 {first} 起共 {len(lines)} 条记忆：用户多次询问同类问题，\n助手均已答复。"
            self.send(200, json.dumps({
                "id": "chatcmpl-test", "object": "chat.completion", "model": model,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
            }, ensure_ascii=False))
        elif model == "malformed":
            self.send(200, "<html>gateway</html>", "text/html")
        elif model == "empty":
            self.send(200, json.dumps({"id": "x", "choices": []}))
        elif model == "missing":
            self.send(404, json.dumps({"error": {"message": "The model `missing` does not exist"}}))
        else:
            self.send(500, json.dumps({"error": {"message": "internal error"}}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--require-key", action="store_true")
    a = ap.parse_args()
    Handler.require_key = a.require_key
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    print(f"listening {srv.server_address[1]}", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
