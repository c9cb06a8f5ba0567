"""What the scripted API stubs (codex_stub, gemini_stub) share: a request handler that logs every
request to STUB_LOG_DIR/NNNN-<kind>.json (what the tests read back) and stops the server after
STUB_MAX_REQUESTS, so a runaway agent cannot loop against it forever."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG_DIR = os.environ.get("STUB_LOG_DIR", "stub-logs")
MAX_REQUESTS = int(os.environ.get("STUB_MAX_REQUESTS", "300"))


class LoggingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    name = "stub"  # the prefix of the stub's stderr lines
    _lock = threading.Lock()
    _count = 0

    def log_message(self, fmt, *args):
        sys.stderr.write(f"[{self.name}] " + (fmt % args) + "\n")

    def _log(self, kind: str, body: object, extra: dict) -> int:
        with LoggingHandler._lock:
            LoggingHandler._count += 1
            n = LoggingHandler._count
        rec = {"n": n, "t": time.time(), "method": self.command, "path": self.path, "kind": kind, "body": body, **extra}
        with open(os.path.join(LOG_DIR, f"{n:04d}-{kind}.json"), "w", encoding="utf-8") as fh:
            json.dump(rec, fh, indent=1, ensure_ascii=False)
        if n >= MAX_REQUESTS:
            threading.Thread(target=self.server.shutdown, daemon=True).start()
        return n

    def _send(self, code: int, data: bytes, ctype: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def serve(handler: type[LoggingHandler], label: str) -> None:
    """Serve `handler` on 127.0.0.1:STUB_PORT (0: any free port, printed for the test to read) until
    STUB_MAX_LIFETIME_S has passed, so a stub left behind by a killed test stops by itself."""
    port = int(os.environ.get("STUB_PORT", "0"))
    lifetime = float(os.environ.get("STUB_MAX_LIFETIME_S", "600"))
    os.makedirs(LOG_DIR, exist_ok=True)
    srv = ThreadingHTTPServer(("127.0.0.1", port), handler)
    srv.daemon_threads = True
    started = time.monotonic()

    def watchdog():
        while time.monotonic() - started < lifetime:
            time.sleep(1)
        srv.shutdown()

    threading.Thread(target=watchdog, daemon=True).start()
    print(f"{label} stub listening on 127.0.0.1:{srv.server_address[1]}, logging to {LOG_DIR}", flush=True)
    srv.serve_forever()
