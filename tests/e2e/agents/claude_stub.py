#!/usr/bin/env python3
"""Scripted stub of the Anthropic Messages API for driving the real Claude Code CLI offline.

Copied from ../shared/tools/claude-code-e2e/stub.py (the verified recipe); changed only so that
STUB_PORT=0 takes a free port, announced on the first stdout line.

Binds 127.0.0.1 only. Bounded: exits after MAX_REQUESTS requests or MAX_LIFETIME_S seconds.
Every request (path, headers minus secrets, body) is logged to LOG_DIR/NNNN-<kind>.json.
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(os.environ.get("STUB_PORT", "8765"))
LOG_DIR = os.environ.get("STUB_LOG_DIR", "stub-logs")
MAX_REQUESTS = int(os.environ.get("STUB_MAX_REQUESTS", "400"))
MAX_LIFETIME_S = float(os.environ.get("STUB_MAX_LIFETIME_S", "2400"))
# usage.input_tokens reported on main-agent responses (set high to provoke auto-compaction)
FAKE_INPUT_TOKENS = int(os.environ.get("STUB_FAKE_INPUT_TOKENS", "0"))
PROJ = os.environ.get("STUB_PROJ", ".")

_lock = threading.Lock()
_count = 0
_started = time.monotonic()


def _text_of(content) -> str:
    if isinstance(content, str):
        return content
    out = []
    if isinstance(content, list):
        for b in content:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "text":
                out.append(b.get("text", ""))
            elif b.get("type") == "tool_result":
                out.append(_text_of(b.get("content")))
    return "\n".join(out)


def _system_text(body) -> str:
    return _text_of(body.get("system"))


def _last_user_prompt(messages):
    """The last plain-text block the user typed (not tool results, system reminders, command echoes)."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if m.get("role") != "user":
            continue
        c = m.get("content")
        blocks = [c] if isinstance(c, str) else [b.get("text", "") for b in (c or [])
                                                  if isinstance(b, dict) and b.get("type") == "text"]
        if isinstance(c, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in c):
            continue
        for t in reversed(blocks):
            if t.strip() and not t.lstrip().startswith("<") and not t.startswith("This session is being continued"):
                return i, t
    return -1, ""


def _last_tool_use_id(messages):
    for m in reversed(messages):
        if m.get("role") == "assistant" and isinstance(m.get("content"), list):
            for b in reversed(m["content"]):
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    return b.get("id", "")
            return ""
    return ""


def classify(body) -> str:
    msgs = body.get("messages") or []
    sysm = _system_text(body)
    last = _text_of(msgs[-1].get("content")) if msgs else ""
    low = (sysm + "\n" + last).lower()
    if ("summary of the conversation" in low or "summarizing conversations" in low
            or "create a detailed summary" in low or "your task is to create a detailed summary" in low):
        return "compact"
    if not body.get("tools"):
        return "side"
    return "main"


def _tid(step: str) -> str:
    return f"toolu_{step}_{uuid.uuid4().hex[:12]}"


def script_main(body):
    """Returns (content_blocks, stop_reason)."""
    msgs = body.get("messages") or []
    pi, prompt = _last_user_prompt(msgs)
    p = prompt.lower()
    last_id = ""
    for ai in range(len(msgs) - 1, pi, -1):  # the last tool call after the prompt that got its result
        m = msgs[ai]
        if m.get("role") == "assistant" and isinstance(m.get("content"), list):
            ids = [b.get("id", "") for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
            answered = {b.get("tool_use_id") for x in msgs[ai + 1:] if isinstance(x.get("content"), list)
                        for b in x["content"] if isinstance(b, dict) and b.get("type") == "tool_result"}
            if ids and ids[-1] in answered:
                last_id = ids[-1]
            break
    steps = sum(1 for m in msgs[pi + 1:] if m.get("role") == "assistant")
    if steps > 30:  # safety bound: never loop
        return [{"type": "text", "text": "STUB: step cap reached."}], "end_turn"
    app = os.path.join(PROJ, "app.py")
    if "subdir" in p:
        if not last_id:
            return [{"type": "tool_use", "id": _tid("c1cd"), "name": "Bash",
                     "input": {"command": "mkdir -p pkg && cd pkg && pwd", "description": "Enter pkg"}}], "tool_use"
        return [{"type": "text", "text": "Now working in pkg/."}], "end_turn"
    if "refactor" in p:
        return script_long(last_id)
    if "fix" in p and "app.py" in p:
        if not last_id:
            return [{"type": "text", "text": "I'll run the app first to see the crash."},
                    {"type": "tool_use", "id": _tid("s1run"), "name": "Bash",
                     "input": {"command": "python3 app.py", "description": "Run the app"}}], "tool_use"
        if "_s1run_" in last_id:
            return [{"type": "text", "text": "It fails with KeyError: 'port' in main(). Let me read app.py."},
                    {"type": "tool_use", "id": _tid("s2read"), "name": "Read",
                     "input": {"file_path": app}}], "tool_use"
        if "_s2read_" in last_id:
            return [{"type": "text", "text": "config.json has no 'port' key; I'll fall back to a default port."},
                    {"type": "tool_use", "id": _tid("s3edit"), "name": "Edit",
                     "input": {"file_path": app, "old_string": 'port = config["port"]',
                               "new_string": 'port = config.get("port", 8000)'}}], "tool_use"
        if "_s3edit_" in last_id:
            return [{"type": "tool_use", "id": _tid("s4rerun"), "name": "Bash",
                     "input": {"command": "python3 app.py", "description": "Re-run the app"}}], "tool_use"
        return [{"type": "text", "text": "Fixed: app.py crashed with KeyError: 'port' because config.json has no "
                 "port; it now uses config.get(\"port\", 8000) and prints 'serving on 127.0.0.1:8000'."}], "end_turn"
    if "test" in p:
        if not last_id:
            return [{"type": "tool_use", "id": _tid("t1write"), "name": "Write",
                     "input": {"file_path": os.path.join(PROJ, "test_app.py"),
                               "content": "import unittest\nfrom unittest import mock\n\nimport app\n\n\n"
                               "class T(unittest.TestCase):\n    def test_default_port(self):\n"
                               "        with mock.patch.object(app, 'load_config', return_value={}):\n"
                               "            app.main()\n\n\nif __name__ == '__main__':\n    unittest.main()\n"}}
                    ], "tool_use"
        if "_t1write_" in last_id:
            return [{"type": "tool_use", "id": _tid("t2run"), "name": "Bash",
                     "input": {"command": "python3 -m unittest test_app -v", "description": "Run tests"}}], "tool_use"
        return [{"type": "text", "text": "Added test_app.py; the default-port test passes. TODO: add a test "
                 "for a custom port from config.json."}], "end_turn"
    # Any other prompt (e.g. after compaction): just answer, citing what we saw.
    return [{"type": "text", "text": "STUB-REPLY: acknowledged. (Context restored check.)"}], "end_turn"


LONG = [
    ("l01", "Bash", {"command": "python3 -c 'import settings_v2'", "description": "Check for the settings module"}),
    ("l02", "Bash", {"command": "ls -la", "description": "List files"}),
    ("l03", "Read", {"file_path": "@/config.json"}),
    ("l04", "Write", {"file_path": "@/settings.py", "content":
        "def port(cfg):\n    return int(cfg['port'])\n\n\ndef host(cfg):\n    return cfg.get('host', '127.0.0.1')\n"}),
    ("l05", "Bash", {"command": "python3 -c 'import settings; print(settings.port({}))'",
                     "description": "Try settings.port"}),
    ("l06", "Read", {"file_path": "@/settings.py"}),
    ("l07", "Edit", {"file_path": "@/settings.py", "old_string": "return int(cfg['port'])",
                     "new_string": "return int(cfg.get('port', 8000))"}),
    ("l08", "Bash", {"command": "python3 -c 'import settings; print(settings.port({}))'",
                     "description": "Re-try settings.port"}),
    ("l09", "Bash", {"command": "python3 -c 'import settings; print(settings.port({\"port\": \"eighty\"}))'",
                     "description": "Bad port value"}),
    ("l10", "Edit", {"file_path": "@/settings.py", "old_string": "return int(cfg.get('port', 8000))",
                     "new_string": "value = cfg.get('port', 8000)\n    return int(value) if str(value).isdigit() else 8000"}),
    ("l11", "Bash", {"command": "python3 -c 'import settings; print(settings.port({\"port\": \"eighty\"}))'",
                     "description": "Re-try bad port value"}),
    ("l12", "Bash", {"command": "python3 -m unittest -v", "description": "Run tests"}),
]


def script_long(last_id):
    done = [k for k, _, _ in LONG if last_id and f"_{k}_" in last_id]
    idx = 0 if not done else [k for k, _, _ in LONG].index(done[0]) + 1
    if idx >= len(LONG):
        return [{"type": "text", "text": "Refactor done: settings.py holds port()/host(); KeyError 'port' and "
                 "ValueError on a non-numeric port are handled. @decision: ports default to 8000. "
                 "TODO: wire settings.port into app.main and add a test for it."}], "end_turn"
    k, name, inp = LONG[idx]
    inp = {a: (v.replace("@", PROJ, 1) if isinstance(v, str) and v.startswith("@/") else v) for a, v in inp.items()}
    return [{"type": "text", "text": f"Step {k}."},
            {"type": "tool_use", "id": _tid(k), "name": name, "input": inp}], "tool_use"


def script_compact(body):
    summary = ("<analysis>stub analysis</analysis>\n<summary>\n1. Primary Request and Intent: fix app.py crash.\n"
               "2. Key Technical Concepts: Python, config.json\n3. Files and Code Sections: app.py (port default)\n"
               "4. Errors and fixes: KeyError 'port' fixed with config.get\n5. Problem Solving: done\n"
               "6. All user messages: fix app.py; add a test\n7. Pending Tasks: test for custom port\n"
               "8. Current Work: tests\n9. Optional Next Step: none\n</summary>")
    return [{"type": "text", "text": summary}], "end_turn"


def script_side(body):
    sysm = _system_text(body).lower()
    msgs = body.get("messages") or []
    last = _text_of(msgs[-1].get("content")) if msgs else ""
    if "json" in sysm and "title" in sysm:
        return [{"type": "text", "text": json.dumps({"title": "Fix app.py KeyError"})}], "end_turn"
    if "isnewtopic" in sysm or "new topic" in sysm:
        return [{"type": "text", "text": json.dumps({"isNewTopic": False, "title": None})}], "end_turn"
    if "prefix" in sysm or "command prefix" in last.lower():
        return [{"type": "text", "text": "none"}], "end_turn"
    return [{"type": "text", "text": "ok"}], "end_turn"


def sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        sys.stderr.write("[stub] " + (fmt % args) + "\n")

    def _log(self, kind: str, body_raw: bytes, extra: dict | None = None) -> int:
        global _count
        with _lock:
            _count += 1
            n = _count
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("x-api-key", "authorization")}
        try:
            body = json.loads(body_raw or b"null")
        except ValueError:
            body = body_raw.decode("utf-8", "replace")
        rec = {"n": n, "t": time.time(), "method": self.command, "path": self.path, "kind": kind,
               "headers": headers, "body": body}
        if extra:
            rec.update(extra)
        with open(os.path.join(LOG_DIR, f"{n:04d}-{kind}.json"), "w", encoding="utf-8") as fh:
            json.dump(rec, fh, indent=1, ensure_ascii=False)
        if n >= MAX_REQUESTS:
            threading.Thread(target=self.server.shutdown, daemon=True).start()
        return n

    def _read(self) -> bytes:
        ln = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(ln) if ln else b""

    def _json(self, code: int, obj: dict):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", "req_stub_" + uuid.uuid4().hex[:8])
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._log("get", b"")
        self._json(200, {})

    def do_HEAD(self):
        self._log("head", b"")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        raw = self._read()
        path = self.path.split("?")[0]
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        if path.endswith("/v1/messages/count_tokens"):
            self._log("count_tokens", raw)
            self._json(200, {"input_tokens": max(1, len(raw) // 4)})
            return
        if not path.endswith("/v1/messages"):
            self._log("other", raw)
            self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "stub: " + path}})
            return
        kind = classify(body)
        if kind == "compact":
            blocks, stop = script_compact(body)
        elif kind == "side":
            blocks, stop = script_side(body)
        else:
            blocks, stop = script_main(body)
        n = self._log(kind, raw, {"reply": blocks})
        in_tok = max(1, len(raw) // 4)
        fake = FAKE_INPUT_TOKENS
        try:
            ctl = os.path.join(LOG_DIR, "..", "fake_tokens")
            if kind == "main":
                with open(ctl, encoding="utf-8") as fh:
                    fake = int(fh.read().strip() or 0)
                os.remove(ctl)  # one-shot: only the next main response reports the fake usage
        except (OSError, ValueError):
            pass
        if kind == "main" and fake:
            in_tok = fake
        model = body.get("model", "claude-stub")
        msg_id = f"msg_stub_{n:04d}"
        usage = {"input_tokens": in_tok, "output_tokens": 20, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        if not body.get("stream"):
            self._json(200, {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                             "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": usage})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.send_header("request-id", "req_stub_" + uuid.uuid4().hex[:8])
        self.end_headers()
        self.close_connection = True
        w = self.wfile
        w.write(sse("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {**usage, "output_tokens": 1}}}))
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                w.write(sse("content_block_start", {"type": "content_block_start", "index": i,
                                                    "content_block": {"type": "text", "text": ""}}))
                w.write(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                    "delta": {"type": "text_delta", "text": b["text"]}}))
            else:
                w.write(sse("content_block_start", {"type": "content_block_start", "index": i,
                                                    "content_block": {"type": "tool_use", "id": b["id"],
                                                                      "name": b["name"], "input": {}}}))
                w.write(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                    "delta": {"type": "input_json_delta",
                                                              "partial_json": json.dumps(b["input"])}}))
            w.write(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
        w.write(sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": 20}}))
        w.write(sse("message_stop", {"type": "message_stop"}))
        w.flush()


def main():
    os.makedirs(LOG_DIR, exist_ok=True)
    srv = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
    srv.daemon_threads = True

    def watchdog():
        while time.monotonic() - _started < MAX_LIFETIME_S:
            time.sleep(1)
        srv.shutdown()

    threading.Thread(target=watchdog, daemon=True).start()
    print(f"stub listening on 127.0.0.1:{srv.server_address[1]}, logging to {LOG_DIR}", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
